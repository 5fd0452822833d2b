//! [`Layout`]: how the LED chain runs under the board, for drivers that drive the chain
//! themselves (the `ws2812-spi` and `apa102-spi` drivers; the `mcu` driver sends points in SGF
//! order and the firmware knows its wiring).

use serde::{Deserialize, Serialize};

use crate::rules::Point;

/// The corner where LED 0 sits, as seen from Black's side of the board (A19 is top left, T1
/// bottom right on 19×19).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Corner {
    /// A19 on 19×19 (SGF `aa`).
    TopLeft,
    /// T19.
    TopRight,
    /// A1.
    BottomLeft,
    /// T1.
    BottomRight,
}

/// How the chain runs from LED 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Along the rows, every row starting on the same side.
    Rows,
    /// Along the rows, turning back at the end of each (the usual LED strip wiring).
    SerpentineRows,
    /// Along the columns, every column starting on the same side.
    Columns,
    /// Along the columns, turning back at the end of each.
    SerpentineColumns,
}

/// Where LED 0 sits and how the chain runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The corner of LED 0.
    pub first: Corner,
    /// The wiring order.
    pub order: Order,
}

/// A layout that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The text names no corner.
    #[error("LED corner `{0}`: use top-left, top-right, bottom-left or bottom-right (as seen from Black's side)")]
    Corner(String),
    /// The text names no order.
    #[error("LED order `{0}`: use rows, serpentine-rows, columns or serpentine-columns")]
    Order(String),
}

impl Default for Layout {
    /// LED 0 at the top left (A19), serpentine rows.
    fn default() -> Self {
        Layout {
            first: Corner::TopLeft,
            order: Order::SerpentineRows,
        }
    }
}

impl Layout {
    /// Parses a corner and an order as written in the config file.
    pub fn parse(first: &str, order: &str) -> Result<Layout, LayoutError> {
        let first = match first {
            "top-left" => Corner::TopLeft,
            "top-right" => Corner::TopRight,
            "bottom-left" => Corner::BottomLeft,
            "bottom-right" => Corner::BottomRight,
            other => return Err(LayoutError::Corner(other.to_string())),
        };
        let order = match order {
            "rows" => Order::Rows,
            "serpentine-rows" => Order::SerpentineRows,
            "columns" => Order::Columns,
            "serpentine-columns" => Order::SerpentineColumns,
            other => return Err(LayoutError::Order(other.to_string())),
        };
        Ok(Layout { first, order })
    }

    /// The point under LED `led` (0-based along the chain) on a board of `size`; `None` past
    /// the last point.
    pub fn point(&self, led: usize, size: u8) -> Option<Point> {
        let n = usize::from(size);
        if led >= n * n {
            return None;
        }
        let (major, mut minor) = (led / n, led % n);
        let serpentine = matches!(self.order, Order::SerpentineRows | Order::SerpentineColumns);
        if serpentine && major % 2 == 1 {
            minor = n - 1 - minor;
        }
        let (x, y) = match self.order {
            Order::Rows | Order::SerpentineRows => (minor, major),
            Order::Columns | Order::SerpentineColumns => (major, minor),
        };
        let (x, y) = match self.first {
            Corner::TopLeft => (x, y),
            Corner::TopRight => (n - 1 - x, y),
            Corner::BottomLeft => (x, n - 1 - y),
            Corner::BottomRight => (n - 1 - x, n - 1 - y),
        };
        Some(Point::new(x as u8, y as u8))
    }

    /// For each LED along the chain, the index (SGF order) of its point: a permutation of
    /// `0..size²`.
    pub fn chain(&self, size: u8) -> Vec<usize> {
        let n = usize::from(size) * usize::from(size);
        (0..n)
            .filter_map(|led| self.point(led, size).map(|p| p.index(size)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_orders() {
        let gtp = |l: Layout, led| l.point(led, 19).unwrap().to_gtp(19);
        let l = Layout::default();
        assert_eq!(
            [gtp(l, 0), gtp(l, 18), gtp(l, 19), gtp(l, 37), gtp(l, 360)],
            ["A19", "T19", "T18", "A18", "T1"]
        );
        let l = Layout::parse("bottom-left", "rows").unwrap();
        assert_eq!([gtp(l, 0), gtp(l, 1), gtp(l, 19)], ["A1", "B1", "A2"]);
        let l = Layout::parse("bottom-right", "serpentine-columns").unwrap();
        assert_eq!(
            [gtp(l, 0), gtp(l, 1), gtp(l, 19), gtp(l, 20)],
            ["T1", "T2", "S19", "S18"]
        );
        let l = Layout::parse("top-right", "columns").unwrap();
        assert_eq!([gtp(l, 0), gtp(l, 1), gtp(l, 19)], ["T19", "T18", "S19"]);
        assert!(l.point(361, 19).is_none());
        assert!(Layout::parse("middle", "rows").is_err());
        assert!(Layout::parse("top-left", "spiral").is_err());
    }

    #[test]
    fn every_layout_is_a_permutation() {
        for first in ["top-left", "top-right", "bottom-left", "bottom-right"] {
            for order in ["rows", "serpentine-rows", "columns", "serpentine-columns"] {
                for size in [9u8, 13, 19] {
                    let mut chain = Layout::parse(first, order).unwrap().chain(size);
                    chain.sort_unstable();
                    let all: Vec<usize> = (0..usize::from(size) * usize::from(size)).collect();
                    assert_eq!(chain, all, "{first} {order} {size}");
                }
            }
        }
    }
}
