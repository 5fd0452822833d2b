//! `smartgoban`: the command-line entry point. Errors are reported here, once, with their
//! causes; everything else lives in the library.

use std::process::ExitCode;

use clap::Parser;
use smartgoban::cli::{self, Cli, Commands};

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `demo -q`: nothing but errors and the final summary
    let quiet = matches!(&cli.command, Commands::Demo(args) if args.quiet);
    let default_level = if quiet {
        "error"
    } else {
        smartgoban::config::DEFAULT_LOG
    };
    let (_target, log_level) = cli::logging::init(default_level);
    if let Commands::Config(args) = &cli.command {
        let code = cli::config_cmd::run(args, &mut std::io::stdout(), &mut std::io::stderr());
        return ExitCode::from(code as u8);
    }
    if let Commands::Token(args) = &cli.command {
        return match cli::token(args) {
            Ok(token) => {
                println!("{token}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        };
    }
    if let Commands::Calibrate(args) = &cli.command {
        return ExitCode::from(cli::calibrate::run(args) as u8);
    }
    if let Commands::Score(args) = &cli.command {
        let code = cli::score::run(args, &mut std::io::stdout(), &mut std::io::stderr());
        return ExitCode::from(code as u8);
    }
    if let Commands::Check(args) = &cli.command {
        let outcome = cli::check::run(args, &mut std::io::stdout(), &mut std::io::stderr());
        return ExitCode::from(outcome.exit_code() as u8);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&anyhow::Error::new(e).context("cannot start the async runtime")),
    };
    let result: anyhow::Result<ExitCode> = runtime.block_on(async {
        match cli.command {
            Commands::Demo(args) => {
                let summary = cli::demo::run(args).await?;
                if let Some(why) = summary.shortfall() {
                    // the record is not the whole game: exit code 3 (README, "Commands")
                    eprintln!("{why}");
                    return Ok(ExitCode::from(3));
                }
            }
            Commands::Run(args) => cli::run::run(args, &log_level).await?,
            Commands::Sim(args) => cli::sim::run(args).await?,
            Commands::Hall(args) => cli::hall::run(args).await?,
            Commands::Check(_)
            | Commands::Score(_)
            | Commands::Token(_)
            | Commands::Config(_)
            | Commands::Calibrate(_) => {}
            Commands::Leds(args) => match args.command {
                cli::leds::LedsCommand::Test(t) => {
                    cli::leds::test(t, &mut std::io::stdout()).await?
                }
            },
        }
        Ok(ExitCode::SUCCESS)
    });
    match result {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

fn fail(e: &anyhow::Error) -> ExitCode {
    eprintln!("error: {e:#}");
    ExitCode::FAILURE
}
