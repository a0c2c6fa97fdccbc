-- cwl-mcp-lsp for Neovim: filetype `cwl` for *.cwl, YAML highlighting for it, :CwlMcpPreview.
-- Starting the server is left to the user's config (vim.lsp.enable('cwl_mcp') on 0.11+, or
-- require('cwl_mcp').setup()), see editors/README.md.
if vim.g.loaded_cwl_mcp then return end
vim.g.loaded_cwl_mcp = true

if vim.filetype and vim.filetype.add then -- 0.8+ (0.7 uses ftdetect/cwl.vim)
  vim.filetype.add({ extension = { cwl = 'cwl' } })
end
-- tree-sitter: parse CWL with the yaml parser, when one is installed (0.9+)
if vim.treesitter and vim.treesitter.language and vim.treesitter.language.register then
  pcall(vim.treesitter.language.register, 'yaml', 'cwl')
end

vim.api.nvim_create_user_command('CwlMcpPreview', function(cmd)
  require('cwl_mcp.preview').open(0, cmd.args ~= '' and cmd.args or nil)
end, { nargs = '?', desc = 'CWL MCP: preview the derived MCP Tool (optional argument: process id)' })

vim.api.nvim_create_user_command('CwlMcpPreviewClose', function()
  require('cwl_mcp.preview').close(vim.api.nvim_get_current_buf())
end, { desc = 'CWL MCP: close the MCP Tool preview of this buffer' })
