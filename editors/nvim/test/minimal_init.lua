-- Isolated init for the headless tests: only this plugin on 'runtimepath' (run.sh also points
-- the XDG folders at a temporary directory, so no user config or plugin is loaded).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin_root = vim.fn.fnamemodify(here, ':h')
vim.opt.runtimepath:prepend(plugin_root)
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.cmd('filetype plugin indent on')
vim.cmd('syntax on')

local server = assert(os.getenv('CWL_MCP_LSP'), 'CWL_MCP_LSP unset')
local mode = os.getenv('MODE') or 'enable'
-- e2e.lua checks the preview's `_meta` key `<prefix>-aliases` against this
local prefix = 'org.example/e2e'
-- E2E_PLUGIN_COMPLETION=off: the plugin leaves completion to Neovim (as before it handled it), to
-- see the completion checks fail
local completion -- nil: the plugin's default
if os.getenv('E2E_PLUGIN_COMPLETION') == 'off' then completion = false end
if mode == 'enable' then
  vim.env.EXPECT_META_PREFIX = 'io.github.eoap/cwl-mcp-extension' -- no setting: the server's default
  -- Neovim 0.11+: lsp/cwl_mcp.lua from the runtimepath, with only the command overridden
  vim.lsp.config('cwl_mcp', { cmd = { server }, cwl_mcp = { completion = completion } })
  vim.lsp.enable('cwl_mcp')
elseif mode == 'setup' then
  vim.env.EXPECT_META_PREFIX = prefix
  require('cwl_mcp').setup({ cmd = { server }, settings = { metaPrefix = prefix }, completion = completion })
elseif mode == 'legacy' then
  -- the FileType autocommand + vim.lsp.start / start_client path of Neovim 0.7-0.10
  vim.env.EXPECT_META_PREFIX = prefix
  require('cwl_mcp').setup({ cmd = { server }, settings = { metaPrefix = prefix }, legacy = true, completion = completion })
else
  error('unknown MODE ' .. mode)
end
