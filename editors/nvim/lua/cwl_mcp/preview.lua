-- :CwlMcpPreview: the MCP Tool that the server derives from a CWL buffer (workspace/executeCommand
-- `cwl-mcp.previewTool` [uri, processId|null]), as pretty JSON in a read-only scratch buffer in a
-- split beside it, refreshed while the CWL buffer changes.
local M = {}

local previews = {} -- source bufnr -> { buf = preview bufnr, process_id = string|nil, timer = uv timer }
local attached = {} -- source bufnr -> true while our nvim_buf_attach callback is attached
local uv = vim.uv or vim.loop
local HL_NS = vim.api.nvim_create_namespace('cwl_mcp_preview')

local json_scalar = (vim.json and vim.json.encode) or vim.fn.json_encode
local EMPTY_DICT_MT = vim.empty_dict and getmetatable(vim.empty_dict()) or nil

-- Tool fields in reading order first, then the rest sorted
local FIRST = { 'name', 'title', 'description', 'annotations', 'inputSchema', 'outputSchema', '_meta' }
local RANK = {}
for i, k in ipairs(FIRST) do RANK[k] = i end

local function is_list(t)
  if vim.islist then return vim.islist(t) end
  return vim.tbl_islist(t)
end

--- Pretty JSON (2-space indent), like the VS Code preview; `top` orders a Tool's fields for reading.
function M.encode(v, indent, top)
  indent = indent or ''
  if v == nil or v == vim.NIL then return 'null' end
  if type(v) ~= 'table' then return json_scalar(v) end
  local inner = indent .. '  '
  if next(v) == nil then
    return (EMPTY_DICT_MT and getmetatable(v) == EMPTY_DICT_MT) and '{}' or '[]'
  end
  local parts = {}
  if is_list(v) then
    for _, x in ipairs(v) do table.insert(parts, inner .. M.encode(x, inner)) end
    return '[\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. ']'
  end
  local keys = vim.tbl_keys(v)
  table.sort(keys, function(a, b)
    local ra, rb = top and RANK[a] or math.huge, top and RANK[b] or math.huge
    if ra ~= rb then return ra < rb end
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do
    table.insert(parts, inner .. json_scalar(tostring(k)) .. ': ' .. M.encode(v[k], inner))
  end
  return '{\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. '}'
end

local function set_lines(buf, text, filetype)
  if not vim.api.nvim_buf_is_valid(buf) then return end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if vim.bo[buf].filetype ~= filetype then vim.bo[buf].filetype = filetype end
end

local function comment(lines)
  local out = {}
  for _, l in ipairs(vim.split(lines, '\n', { plain = true })) do table.insert(out, '// ' .. l) end
  return table.concat(out, '\n')
end

-- The header above the last good Tool while the current text derives none (issue 9 item 8: the
-- pane keeps that Tool, visibly marked out of date, so that typing does not make it flicker).
M.STALE_MARK = 'CWL MCP: OUT OF DATE'

-- text, filetype and whether it is a Tool (`good`) for an answer of the server
local function render(err, result)
  if err then
    local msg = type(err) == 'table' and (err.message or vim.inspect(err)) or tostring(err)
    return msg, 'jsonc', false
  end
  if result == nil or result == vim.NIL then
    return 'the server derived no MCP Tool for this document', 'jsonc', false
  end
  local is_tool = type(result) == 'table' and result.name ~= nil
  return M.encode(result, '', is_tool), 'json', true
end

-- what the preview shows: the Tool; or, when none derives now, why, above the last good Tool
-- (marked out of date) or alone. Returns text, filetype, number of header lines.
local function compose(p, text, ft, good)
  if good then
    p.last_good = text
    return text, ft, 0
  end
  if not p.last_good then
    local c = comment('CWL MCP: no MCP Tool could be derived (see the diagnostics).\n' .. text)
    return c, ft, select(2, c:gsub('\n', '')) + 1
  end
  local head = comment(M.STALE_MARK .. ' (the last Tool derived; the current text derives none)\n' .. text
    .. '\n(see the diagnostics; the Tool is shown again once the text derives one)')
  return head .. '\n' .. p.last_good, 'jsonc', select(2, head:gsub('\n', '')) + 1
end

-- asks the server; calls done(text, filetype) in the main loop
local function derive(src, process_id, done)
  local cwl = require('cwl_mcp')
  local client = cwl.clients(src)[1]
  if not client then
    done('cwl-mcp-lsp is not attached to this buffer', 'jsonc', false)
    return
  end
  local params = { command = cwl.server_command, arguments = { vim.uri_from_bufnr(src), process_id or vim.NIL } }
  cwl.request(client, 'workspace/executeCommand', params, function(err, result)
    local text, ft, good = render(err, result)
    vim.schedule(function() done(text, ft, good) end)
  end, src)
end

local function buf_name(src, process_id)
  local base = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(src), ':t')
  if base == '' then base = 'buffer' .. src end
  return ('cwl-mcp://%s%s.mcp.json'):format(base, process_id and ('#' .. process_id) or '')
end

local function refresh(src)
  local p = previews[src]
  if not p or not vim.api.nvim_buf_is_valid(p.buf) then return end
  derive(src, p.process_id, function(text, ft, good)
    if previews[src] ~= p or not vim.api.nvim_buf_is_valid(p.buf) then return end
    local shown, shown_ft, head = compose(p, text, ft, good)
    set_lines(p.buf, shown, shown_ft)
    -- for statuslines and tests: true while the buffer shows an out-of-date Tool
    vim.b[p.buf].cwl_mcp_preview_stale = (not good and p.last_good ~= nil)
    vim.api.nvim_buf_clear_namespace(p.buf, HL_NS, 0, -1)
    for l = 0, head - 1 do
      vim.api.nvim_buf_add_highlight(p.buf, HL_NS, 'WarningMsg', l, 0, -1)
    end
  end)
end

local function watch(src)
  local group = vim.api.nvim_create_augroup('cwl_mcp_preview_' .. src, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufWipeout', 'BufDelete' }, {
    group = group,
    buffer = src,
    callback = function() M.close(src) end,
  })
  -- on_lines sees every change (typing, API edits, undo), unlike TextChanged
  if attached[src] then return end
  attached[src] = true
  vim.api.nvim_buf_attach(src, false, {
    on_detach = function() attached[src] = nil end,
    on_lines = function()
      local p = previews[src]
      if not p then attached[src] = nil; return true end -- detach
      -- the server coalesces edits itself; this only avoids one request per keystroke
      if not p.timer then p.timer = uv.new_timer() end
      p.timer:stop()
      p.timer:start(250, 0, vim.schedule_wrap(function() refresh(src) end))
    end,
  })
end

--- Closes the preview of src (and stops following its edits).
function M.close(src)
  local p = previews[src]
  previews[src] = nil
  if p then
    if p.timer then p.timer:stop(); p.timer:close() end
    if vim.api.nvim_buf_is_valid(p.buf) then vim.api.nvim_buf_delete(p.buf, { force = true }) end
  end
  pcall(vim.api.nvim_del_augroup_by_name, 'cwl_mcp_preview_' .. src)
end

--- Opens (or refreshes) the preview of src in a vertical split; the cursor stays in src.
function M.open(src, process_id)
  src = (src == nil or src == 0) and vim.api.nvim_get_current_buf() or src
  local p = previews[src]
  if p and (not vim.api.nvim_buf_is_valid(p.buf) or p.process_id ~= process_id) then
    M.close(src)
    p = nil
  end
  if not p then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    pcall(vim.api.nvim_buf_set_name, buf, buf_name(src, process_id))
    set_lines(buf, '// CWL MCP: deriving...', 'jsonc')
    vim.api.nvim_create_autocmd('BufWipeout', {
      buffer = buf,
      callback = function() if previews[src] and previews[src].buf == buf then M.close(src) end end,
    })
    p = { buf = buf, process_id = process_id }
    previews[src] = p
    watch(src)
  end
  if vim.fn.bufwinid(p.buf) == -1 then
    local win = vim.api.nvim_get_current_win()
    vim.cmd('rightbelow vsplit')
    vim.api.nvim_win_set_buf(0, p.buf)
    vim.api.nvim_set_current_win(win)
  end
  refresh(src)
  return p.buf
end

--- The preview buffer of src, if open (for tests and statuslines).
function M.buffer(src)
  local p = previews[src]
  return p and vim.api.nvim_buf_is_valid(p.buf) and p.buf or nil
end

return M
