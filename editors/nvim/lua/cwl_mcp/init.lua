-- cwl-mcp-lsp client for Neovim: configuration for vim.lsp.config / vim.lsp.enable (0.11+),
-- nvim-lspconfig, and a vim.lsp.start_client fallback for Neovim 0.7-0.10; plus :CwlMcpPreview.
-- See editors/README.md for the snippets.
local M = {}

M.name = 'cwl_mcp'
M.server_command = 'cwl-mcp.previewTool'
M.root_markers = { 'cwl-mcp.toml', '.git' }
M.filetypes = { 'cwl' }

--- The `cwlMcp` settings the server reads: the editor keys of SETTINGS in src/base/settings.rs
--- (tests/settings_schema.rs checks this list against it).
M.setting_keys = { 'profile', 'metaPrefix', 'protocolVersion', 'inlayHints', 'agentContext', 'cwl2mcpHints', 'clientInterop', 'clientNames' }
local SETTING_KEYS = {}
for _, k in ipairs(M.setting_keys) do SETTING_KEYS[k] = true end

-- scheduled: an error-level message inside an autocommand would abort it
local function notify(msg, level)
  vim.schedule(function() vim.notify('cwl-mcp: ' .. msg, level or vim.log.levels.ERROR) end)
end

local function empty_dict()
  return vim.empty_dict and vim.empty_dict() or {}
end

--- The `cwlMcp` settings object sent to the server: only the keys the user gave (SPEC §1), as a
--- JSON object even when empty. Accepts `{profile = ...}` or `{cwlMcp = {profile = ...}}`.
function M.server_settings(settings)
  settings = settings or {}
  if type(settings.cwlMcp) == 'table' then settings = settings.cwlMcp end
  local out = empty_dict()
  for k, v in pairs(settings) do
    if SETTING_KEYS[k] then
      out[k] = v
    else
      notify(('unknown setting %q (known: %s)'):format(tostring(k), table.concat(M.setting_keys, ', ')),
        vim.log.levels.WARN)
    end
  end
  return out
end

--- The server's argv: opts.cmd (string or list), else vim.g.cwl_mcp_server_path, else
--- `cwl-mcp-lsp` from PATH.
function M.cmd(opts)
  local cmd = (opts and opts.cmd) or vim.g.cwl_mcp_server_path or 'cwl-mcp-lsp'
  if type(cmd) == 'string' then cmd = { cmd } end
  return cmd
end

local warned = {}
local function check_executable(cmd)
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then return true end
  if vim.fn.executable(cmd[1]) == 1 then return true end
  if not warned[cmd[1]] then
    warned[cmd[1]] = true
    notify(('language server %q not found: install cwl-mcp-lsp (cargo install --path . in its repository) '
      .. 'or give its path, e.g. require("cwl_mcp").setup({ cmd = { "/path/to/cwl-mcp-lsp" } })'):format(cmd[1]))
  end
  return false
end

-- initializationOptions follow config.settings, so that vim.lsp.config() overrides reach both
local function before_init(params, config)
  local s = (config.settings or {}).cwlMcp
  params.initializationOptions = { cwlMcp = (s and next(s) ~= nil) and s or empty_dict() }
end

local function on_init(client)
  check_executable(client.config.cmd)
end

local function on_exit(code, signal, client_id)
  require('cwl_mcp.attach').on_exit(code, signal, client_id)
end

--- A complete client configuration table (vim.lsp.config / vim.lsp.start / lspconfig's default_config).
--- opts: { cmd = string|list, settings = { profile, metaPrefix, protocolVersion, inlayHints, agentContext, cwl2mcpHints, clientInterop, clientNames },
---         filetypes = list, root_markers = list, on_attach = fun(client, bufnr), capabilities = table,
---         completion = false (leave completion to you), autotrigger = true (menus on `:`),
---         codelens = false (no automatic lens refresh) }
function M.config(opts)
  opts = opts or {}
  if opts.cmd then M.last_cmd = M.cmd(opts) end
  local cfg = {
    name = M.name,
    cmd = M.cmd(opts),
    filetypes = opts.filetypes or M.filetypes,
    root_markers = opts.root_markers or M.root_markers,
    settings = { cwlMcp = M.server_settings(opts.settings) },
    before_init = before_init,
    on_init = on_init,
    on_exit = on_exit,
    -- read by lua/cwl_mcp/attach.lua when a client attaches
    cwl_mcp = { completion = opts.completion, autotrigger = opts.autotrigger, codelens = opts.codelens },
    -- the server's "Preview derived MCP Tool" code action opens the preview buffer
    commands = {
      [M.server_command] = function(command, ctx)
        local args = command.arguments or {}
        require('cwl_mcp.preview').open(ctx.bufnr, args[2] ~= vim.NIL and args[2] or nil)
      end,
    },
  }
  if vim.fn.exists('##LspAttach') == 1 then -- 0.8+: plugin/cwl_mcp.lua runs attach.lua on LspAttach
    if opts.on_attach then cfg.on_attach = opts.on_attach end
  else
    cfg.on_attach = function(client, bufnr)
      require('cwl_mcp.attach').attach(client, bufnr)
      if opts.on_attach then opts.on_attach(client, bufnr) end
    end
  end
  if opts.capabilities then cfg.capabilities = opts.capabilities end
  return cfg
end

-- root directory for the pre-0.11 path: nearest folder with a root marker, else the file's folder
local function find_root(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name ~= '' and name or vim.fn.getcwd() .. '/x', ':p:h')
  if vim.fs and vim.fs.find then
    local found = vim.fs.find(markers, { upward = true, path = dir })[1]
    if found then return vim.fn.fnamemodify(found, ':h') end
    return dir
  end
  for _, m in ipairs(markers) do -- 0.7
    local d = vim.fn.finddir(m, dir .. ';')
    if d == '' then d = vim.fn.findfile(m, dir .. ';') end
    if d ~= '' then return vim.fn.fnamemodify(vim.fn.fnamemodify(d, ':p'):gsub('/$', ''), ':h') end
  end
  return dir
end

local legacy_clients = {} -- root_dir -> client id (0.7)

--- Starts (or reuses) the client for bufnr without vim.lsp.config (Neovim 0.7-0.10).
function M.start(bufnr, opts)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local cfg = M.config(opts)
  if not check_executable(cfg.cmd) then return nil end
  cfg.root_dir = find_root(bufnr, cfg.root_markers)
  cfg.root_markers, cfg.filetypes = nil, nil
  if vim.lsp.start then -- 0.8+: reuses a client with the same name and root_dir
    return vim.lsp.start(cfg, { bufnr = bufnr })
  end
  local id = legacy_clients[cfg.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    cfg.workspace_folders = { { uri = vim.uri_from_fname(cfg.root_dir), name = cfg.root_dir } }
    id = vim.lsp.start_client(cfg)
    legacy_clients[cfg.root_dir] = id
  end
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

--- One call for every Neovim version: vim.lsp.config + vim.lsp.enable on 0.11+, a FileType
--- autocommand around M.start before that.
function M.setup(opts)
  opts = opts or {}
  M.setup_opts = opts
  if vim.lsp.config and vim.lsp.enable and not opts.legacy then
    vim.lsp.config(M.name, M.config(opts))
    vim.lsp.enable(M.name)
    return
  end
  local group = vim.api.nvim_create_augroup('cwl_mcp_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = opts.filetypes or M.filetypes,
    callback = function(ev) M.start(ev.buf, opts) end,
  })
  -- buffers already open when setup() runs
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(opts.filetypes or M.filetypes, vim.bo[b].filetype) then
      M.start(b, opts)
    end
  end
end

--- Registers `cwl_mcp` with nvim-lspconfig's legacy framework, for require('lspconfig').cwl_mcp.setup{}.
--- (nvim-lspconfig 2.x on Neovim 0.11 reads lsp/cwl_mcp.lua from this plugin instead.)
function M.register_lspconfig(opts)
  local ok, configs = pcall(require, 'lspconfig.configs')
  if not ok then
    notify('nvim-lspconfig is not installed')
    return false
  end
  if not configs[M.name] then
    local cfg = M.config(opts)
    local markers = cfg.root_markers
    cfg.root_markers, cfg.name = nil, nil
    cfg.root_dir = function(fname)
      return require('lspconfig.util').root_pattern(unpack(markers))(fname) or vim.fn.fnamemodify(fname, ':p:h')
    end
    cfg.single_file_support = true
    configs[M.name] = {
      default_config = cfg,
      docs = { description = 'cwl-mcp-lsp: the MCP hints (mcp:Tool) of CWL documents' },
    }
  end
  return true
end

--- Clients of cwl-mcp-lsp attached to bufnr.
function M.clients(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr, name = M.name }) end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == M.name then table.insert(out, c) end
  end
  return out
end

--- Sends a request through a client, on every Neovim version (0.11 prefers method calls).
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function is_cwl_buffer(b)
  return vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == ''
    and vim.tbl_contains((M.setup_opts and M.setup_opts.filetypes) or M.filetypes, vim.bo[b].filetype)
end

--- Loaded buffers of filetype cwl (or setup()'s filetypes).
function M.cwl_buffers()
  return vim.tbl_filter(is_cwl_buffer, vim.api.nvim_list_bufs())
end

--- :CwlMcpRestart: stops the running cwl_mcp clients (waiting up to 2 s) and starts the client
--- again for every loaded CWL buffer, the way it was started (vim.lsp.enable or setup()).
function M.restart()
  local attach = require('cwl_mcp.attach')
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ name = M.name }) or vim.lsp.get_active_clients()
  local running = {}
  for _, c in pairs(all) do
    if c.name == M.name then
      attach.stopping[c.id] = true
      table.insert(running, c)
      if vim.fn.has('nvim-0.11') == 1 then c:stop() else c.stop() end
    end
  end
  local function stopped(c)
    if vim.fn.has('nvim-0.11') == 1 then return c:is_stopped() end
    return c.is_stopped()
  end
  vim.wait(2000, function()
    for _, c in ipairs(running) do if not stopped(c) then return false end end
    return true
  end, 20)
  for _, c in ipairs(running) do
    if not stopped(c) then if vim.fn.has('nvim-0.11') == 1 then c:stop(true) else c.stop(true) end end
  end
  local n = 0
  for _, b in ipairs(M.cwl_buffers()) do
    n = n + 1
    if vim.lsp.is_enabled and vim.lsp.is_enabled(M.name) then
      vim.api.nvim_exec_autocmds('FileType', { group = 'nvim.lsp.enable', buffer = b, modeline = false })
    else
      M.start(b, M.setup_opts)
    end
  end
  notify(('restarted the language server for %d CWL buffer(s)'):format(n), vim.log.levels.INFO)
end

--- Shows the derived MCP Tool of bufnr (processId optional) in a scratch buffer beside it.
function M.preview(bufnr, process_id)
  return require('cwl_mcp.preview').open(bufnr, process_id)
end

return M
