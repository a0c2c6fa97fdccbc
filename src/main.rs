fn main() {
    println!("cwl-mcp-lsp: under construction");
}
