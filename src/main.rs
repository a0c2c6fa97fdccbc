use clap::Parser;

use clap::CommandFactory;

use cwl_mcp_lsp::cli::{Cli, Command, FormatArg, check, derive};

#[global_allocator]
static ALLOCATOR: cwl_mcp_lsp::base::alloc::Rounded = cwl_mcp_lsp::base::alloc::Rounded;

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
            check: check_options,
            format,
            paths,
        }) => {
            let format = match format {
                FormatArg::Text => check::Format::Text,
                FormatArg::Json => check::Format::Json,
                FormatArg::Sarif => check::Format::Sarif,
                FormatArg::Github => check::Format::Github,
            };
            let mut layer = options.layer();
            check_options.apply(&mut layer);
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            check::run(&paths, &layer, format, &mut out)
        }
        Some(Command::Completions { shell }) => {
            let mut command = Cli::command();
            let name = command.get_name().to_string();
            clap_complete::generate(shell, &mut command, name, &mut std::io::stdout().lock());
            0
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
