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

-- Neovim 0.11's vim.lsp.enable() skips a config whose cmd is not executable, writing only to the
-- LSP log: say it once, where the user sees it
if vim.lsp.is_enabled then
  local warned = false
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'cwl',
    group = vim.api.nvim_create_augroup('cwl_mcp_missing_server', { clear = true }),
    callback = function()
      if warned or not vim.lsp.is_enabled('cwl_mcp') then return end
      local cfg = vim.lsp.config.cwl_mcp
      local cmd = cfg and cfg.cmd
      if type(cmd) == 'table' and type(cmd[1]) == 'string' and vim.fn.executable(cmd[1]) == 0 then
        warned = true
        local msg = ('cwl-mcp: language server %q not found, so cwl_mcp does not start. Install cwl-mcp-lsp '
          .. 'or give its path: vim.lsp.config("cwl_mcp", { cmd = { "/path/to/cwl-mcp-lsp" } })'):format(cmd[1])
        vim.schedule(function() vim.notify(msg, vim.log.levels.ERROR) end) -- not inside the autocommand
      end
    end,
  })
end

vim.api.nvim_create_user_command('CwlMcpRestart', function()
  require('cwl_mcp').restart()
end, { desc = 'CWL MCP: restart the language server (after a crash, or to pick up a new binary)' })

-- Neovim 0.8+: completion, code lens refresh (lua/cwl_mcp/attach.lua) for each attached buffer
if vim.fn.exists('##LspAttach') == 1 then
  vim.api.nvim_create_autocmd('LspAttach', {
    group = vim.api.nvim_create_augroup('cwl_mcp_attach', { clear = true }),
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data and ev.data.client_id)
      if client and client.name == 'cwl_mcp' then require('cwl_mcp.attach').attach(client, ev.buf) end
    end,
  })
end
