-- :checkhealth cwl_mcp
local M = {}

local function h()
  local health = vim.health or require('health')
  return {
    start = health.start or health.report_start,
    ok = health.ok or health.report_ok,
    warn = health.warn or health.report_warn,
    error = health.error or health.report_error,
    info = health.info or health.report_info,
  }
end

function M.check()
  local r = h()
  local cwl = require('cwl_mcp')
  r.start('cwl-mcp-lsp')
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ name = cwl.name }) or vim.lsp.get_active_clients()
  -- the command of a running client, else of vim.lsp.config('cwl_mcp'), else of setup(), else the default
  local cmd
  for _, c in pairs(all) do
    if c.name == cwl.name then cmd = c.config.cmd; break end
  end
  if not cmd and vim.lsp.config and vim.lsp.config.cwl_mcp then
    cmd = vim.lsp.config.cwl_mcp.cmd
  end
  cmd = cmd or cwl.last_cmd or cwl.cmd()
  if type(cmd) == 'table' and type(cmd[1]) == 'string' then
    if vim.fn.executable(cmd[1]) == 1 then
      r.ok(('server: %s'):format(vim.fn.exepath(cmd[1])))
    else
      r.error(('server %q is not executable'):format(cmd[1]),
        { 'install cwl-mcp-lsp, or give its path: vim.lsp.config("cwl_mcp", { cmd = { "/path/to/cwl-mcp-lsp" } })' })
    end
  else
    r.info('server command is a function (not checked)')
  end
  local ft
  if vim.fn.has('nvim-0.8') == 1 then
    local ok, m = pcall(vim.filetype.match, { filename = 'x.cwl' })
    ft = ok and m or nil
  end
  if ft == nil or ft == 'cwl' then
    r.ok('*.cwl files get filetype cwl')
  else
    r.warn(('*.cwl files get filetype %s, not cwl'):format(ft))
  end
  local n = 0
  for _, c in pairs(all) do
    if c.name == cwl.name then
      n = n + 1
      local bufs = vim.tbl_keys(c.attached_buffers or {})
      r.ok(('client %d running (root %s), attached to %d buffer(s)'):format(c.id, tostring(c.config.root_dir), #bufs))
    end
  end
  -- a client that died (the plugin records unexpected exits) is not "no client"
  local exits = require('cwl_mcp.attach').exits
  for _, e in ipairs(exits) do
    local why = e.signal ~= 0 and ('signal %d'):format(e.signal) or ('exit code %d'):format(e.code)
    local msg = ('client %d exited unexpectedly (%s) at %s'):format(e.id, why, os.date('%H:%M:%S', e.time))
    if n == 0 then
      r.error(msg, { 'run :CwlMcpRestart to start it again', 'its stderr is in the LSP log (:LspLog, ' .. vim.lsp.get_log_path() .. ')' })
    else
      r.info(msg .. '; a client runs again now')
    end
  end
  if n == 0 then
    local open = cwl.cwl_buffers()
    if #open == 0 then
      r.info('no cwl_mcp client running (open a *.cwl file)')
    elseif #exits == 0 then
      r.warn(('%d CWL buffer(s) open, but no cwl_mcp client attached'):format(#open),
        { "call vim.lsp.enable('cwl_mcp') or require('cwl_mcp').setup() in your config (before the file opens)",
          'or run :CwlMcpRestart to start it for the open buffers' })
    end
  end
end

return M
