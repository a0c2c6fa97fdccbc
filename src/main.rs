use clap::Parser;

use cwl_mcp_lsp::cli::{Cli, Command, FormatArg, check, derive};

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match cli.command {
        None | Some(Command::Serve { .. }) => cwl_mcp_lsp::server::run_stdio(),
        Some(Command::Check {
            options,
            format,
            paths,
        }) => {
            let format = match format {
                FormatArg::Text => check::Format::Text,
                FormatArg::Json => check::Format::Json,
            };
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            check::run(&paths, &options.layer(), format, &mut out)
        }
        Some(Command::Derive {
            options,
            all,
            target,
        }) => derive::run_derive(
            &target,
            all,
            &options.layer(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        Some(Command::ToolsList { options, paths }) => derive::run_tools_list(
            &paths,
            &options.layer(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
    };
    std::process::exit(code);
}
