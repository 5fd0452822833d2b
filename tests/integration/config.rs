//! `smartgoban config check FILE` and `config example` (issue 16): each class of error with
//! its message, the file's line and the key's name; the example is the installed file.

use std::process::{Command, Output};

use crate::support::root;

fn smartgoban(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smartgoban"))
        .args(args)
        .current_dir(root())
        .env_remove("SMARTGOBAN_LOG")
        .output()
        .expect("run smartgoban")
}

/// `config check` on `text`: its exit code and stderr.
fn check(text: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("smartgoban.toml");
    std::fs::write(&file, text).unwrap();
    let o = smartgoban(&["config", "check", file.to_str().unwrap()]);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_example_is_the_installed_file_and_it_is_valid() {
    let o = smartgoban(&["config", "example"]);
    assert!(o.status.success());
    assert_eq!(
        o.stdout,
        std::fs::read(root().join("systemd/smartgoban.toml")).unwrap()
    );
    let o = smartgoban(&["config", "check", "systemd/smartgoban.toml"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // the effective configuration, defaults included, reads back as a config file
    assert!(out.contains("serial = \"/dev/smartgoban\""), "{out}");
    assert!(out.contains("settle_ms = 150"), "{out}");
    assert!(out.contains("[leds]"), "{out}");
    let (code, again, err) = check(&out);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        again.lines().skip(1).collect::<Vec<_>>(),
        out.lines().skip(1).collect::<Vec<_>>(),
        "the printed configuration prints the same"
    );
}

#[test]
fn an_unknown_key_is_named_with_its_line() {
    let (code, _, err) = check("serial = \"/dev/ttyACM0\"\n\n[game]\nsize = 19\nkomy = 6.5\n");
    assert_eq!(code, Some(1));
    assert!(err.contains("line 5"), "{err}");
    assert!(err.contains("komy"), "{err}");
    assert!(err.contains("unknown field"), "{err}");
}

#[test]
fn a_wrong_type_is_named_with_its_line() {
    let (code, _, err) = check("serial = \"/dev/ttyACM0\"\nsettle_ms = \"fast\"\n");
    assert_eq!(code, Some(1));
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("settle_ms"), "{err}");
    assert!(err.contains("invalid type"), "{err}");
}

#[test]
fn a_value_out_of_range_is_named_with_its_line() {
    let (code, _, err) =
        check("# the hall's board 7\n\n[leds]\ndriver = \"mcu\"\nbrightness = 300\n");
    assert_eq!(code, Some(1));
    assert!(
        err.contains(", line 5: `leds.brightness` = 300: use 0 to 255"),
        "{err}"
    );
    let (code, _, err) = check("[game]\nsize = 21\n");
    assert_eq!(code, Some(1));
    assert!(
        err.contains(", line 2: `game.size` = 21: use 9, 13 or 19"),
        "{err}"
    );
    let (code, _, err) = check("log = \"loud\"\n");
    assert_eq!(code, Some(1));
    assert!(err.contains(", line 1: `log`"), "{err}");
}

#[test]
fn a_missing_file_is_named() {
    let o = smartgoban(&["config", "check", "/no/such/smartgoban.toml"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot read config file /no/such/smartgoban.toml"),
        "{err}"
    );
    assert!(err.contains("No such file"), "{err}");
}

#[test]
fn a_bad_device_path_is_an_error_or_a_warning() {
    // not an absolute path: an error, on its line
    let (code, _, err) = check("http = \"0.0.0.0:8019\"\nserial = \"ttyACM0\"\n");
    assert_eq!(code, Some(1));
    assert!(err.contains(", line 2: `serial` = \"ttyACM0\""), "{err}");
    assert!(err.contains("absolute path"), "{err}");
    // a file that is no device: valid syntax, but `run` would refuse it
    let file = root().join("README.md");
    let (code, _, err) = check(&format!("serial = {:?}\n", file.to_str().unwrap()));
    assert_eq!(code, Some(0));
    assert!(
        err.contains(&format!(
            "warning: serial {} is not a character device",
            file.display()
        )),
        "{err}"
    );
    // a device not plugged in yet: the service waits for it
    let (code, _, err) = check("serial = \"/dev/smartgoban-not-here\"\n");
    assert_eq!(code, Some(0));
    assert!(err.contains("does not exist (yet)"), "{err}");
}
