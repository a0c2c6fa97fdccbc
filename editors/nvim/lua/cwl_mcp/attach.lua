-- What the plugin does for each buffer a cwl_mcp client attaches to (LspAttach on 0.8+, on_attach
-- on 0.7): completion that inserts an item's whole text, code lenses kept fresh, a message when
-- the server dies. See editors/README.md (Neovim).
local M = {}

local uv = vim.uv or vim.loop
local api = vim.api

-- opts of the running configuration (client.config.cwl_mcp, set by require('cwl_mcp').config())
local function opts_of(client)
  return (client and client.config and client.config.cwl_mcp) or {}
end

--- The LSP completion item behind v:completed_item, when it is one of ours.
local function completed_lsp_item(client_id)
  local ci = vim.v.completed_item
  if type(ci) ~= 'table' or type(ci.word) ~= 'string' then return nil end
  local ud = ci.user_data
  if type(ud) == 'string' and ud ~= '' then
    local ok, d = pcall(vim.fn.json_decode, ud)
    ud = ok and d or nil
  end
  local lsp = type(ud) == 'table' and type(ud.nvim) == 'table' and ud.nvim.lsp or nil
  if type(lsp) ~= 'table' or type(lsp.completion_item) ~= 'table' then return nil end
  if lsp.client_id and lsp.client_id ~= client_id then return nil end
  return lsp.completion_item, ci.word
end

-- Neovim inserts only a "word" for a plain-text completion item: 0.11's vim.lsp.completion the
-- text up to the first white space (so `mcp:Tool:\n    ` became `mcp:Tool:`), 0.7's omnifunc the
-- whole text with each line break as a NUL (`mcp:Tool:^@`). For a plain-text item of ours whose
-- text has line breaks, this puts the whole text in place of that word, continuation lines
-- indented like the current line unless the item says insertTextMode asIs (LSP's rule), with the
-- cursor at its end. Snippets are left to Neovim (vim.snippet on 0.10+).
function M.complete_done(bufnr, client_id)
  local item, word = completed_lsp_item(client_id)
  if not item or item.insertTextFormat == 2 then return false end
  -- 0.10+ say why the menu closed; accept only (v:completed_item may be an older item's)
  local ev = vim.v.event
  if type(ev) == 'table' and ev.reason ~= nil and ev.reason ~= 'accept' then return false end
  local text = (type(item.textEdit) == 'table' and item.textEdit.newText) or item.insertText
  if type(text) ~= 'string' or not text:find('\n', 1, true) then return false end
  if api.nvim_get_current_buf() ~= bufnr then return false end
  local row, col = unpack(api.nvim_win_get_cursor(0))
  row = row - 1
  local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  local start = col - #word
  -- the word Neovim inserted ends at the cursor (a NUL reads back as "\n")
  -- (0.7 reads a NUL back as "\0", later versions as "\n")
  if start < 0 or line:sub(start + 1, col):gsub('%z', '\n') ~= word then return false end
  local lines = vim.split(text, '\n', { plain = true })
  if item.insertTextMode ~= 1 then
    local indent = line:match('^[ \t]*')
    for i = 2, #lines do lines[i] = indent .. lines[i] end
  end
  api.nvim_buf_set_text(bufnr, row, start, row, col, lines)
  local last_col = (#lines == 1 and start or 0) + #lines[#lines]
  api.nvim_win_set_cursor(0, { row + #lines, last_col })
  -- 0.7-0.10 leave additionalTextEdits (e.g. the `$namespaces` binding) unapplied; 0.11's
  -- vim.lsp.completion applies them itself. They lie before the item (higher up), so apply last.
  if not vim.lsp.completion and type(item.additionalTextEdits) == 'table' and #item.additionalTextEdits > 0 then
    local client = vim.lsp.get_client_by_id(client_id)
    vim.lsp.util.apply_text_edits(item.additionalTextEdits, bufnr, client and client.offset_encoding or 'utf-16')
  end
  return true
end

--- Omnifunc for Neovim 0.7-0.9, as vim.lsp.omnifunc of 0.7 but with each item's word cut at its
--- first line break: 0.7 would put the whole text in the buffer with NULs for the line breaks
--- (and its incremental sync then sends the server a different text); M.complete_done then puts
--- the whole text in place.
function M.omnifunc(findstart, _)
  if findstart ~= 1 then return {} end
  local bufnr = api.nvim_get_current_buf()
  local pos = api.nvim_win_get_cursor(0)
  local line_to_cursor = api.nvim_get_current_line():sub(1, pos[2])
  local start = vim.fn.match(line_to_cursor, '\\k*$')
  local prefix = line_to_cursor:sub(start + 1)
  local params = vim.lsp.util.make_position_params()
  vim.lsp.buf_request(bufnr, 'textDocument/completion', params, function(err, result)
    if err or not result or vim.fn.mode() ~= 'i' then return end
    local matches = vim.lsp.util.text_document_completion_list_to_complete_items(result, prefix)
    for _, m in ipairs(matches) do
      if type(m.word) == 'string' then m.word = m.word:match('^[^\n]*') end
    end
    vim.fn.complete(start + 1, matches)
  end)
  return -2
end

-- code lenses: on attach, and 300 ms after the last change (any way the text changed)
local lens_timers = {}
local function refresh_lenses(bufnr)
  if not api.nvim_buf_is_valid(bufnr) then return end
  if vim.fn.has('nvim-0.10') == 1 then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  else
    api.nvim_buf_call(bufnr, function() vim.lsp.codelens.refresh() end)
  end
end
local function schedule_lenses(bufnr, ms)
  local t = lens_timers[bufnr]
  if not t then
    t = uv.new_timer()
    lens_timers[bufnr] = t
  end
  t:stop()
  t:start(ms, 0, vim.schedule_wrap(function() pcall(refresh_lenses, bufnr) end))
end

local attached_lines = {}
function M.attach(client, bufnr)
  local o = opts_of(client)
  -- completion: 0.7-0.9 set no omnifunc themselves, and theirs inserts line breaks as NULs
  local omni = vim.bo[bufnr].omnifunc
  if o.completion ~= false and vim.fn.has('nvim-0.10') == 0 and (omni == '' or omni == 'v:lua.vim.lsp.omnifunc') then
    vim.bo[bufnr].omnifunc = "v:lua.require'cwl_mcp.attach'.omnifunc"
  elseif omni == '' then
    vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
  end
  if o.completion ~= false and vim.lsp.completion and vim.lsp.completion.enable then
    -- 0.11+: accepting an item (<C-y>) expands its snippet and applies its additional edits
    vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = o.autotrigger == true })
  end
  if o.completion ~= false then
    local group = api.nvim_create_augroup('cwl_mcp_complete_' .. bufnr, { clear = true })
    api.nvim_create_autocmd('CompleteDone', {
      group = group,
      buffer = bufnr,
      callback = function() pcall(M.complete_done, bufnr, client.id) end,
    })
  end
  if o.codelens ~= false and client.server_capabilities and client.server_capabilities.codeLensProvider then
    schedule_lenses(bufnr, 50)
    if not attached_lines[bufnr] then
      attached_lines[bufnr] = true
      api.nvim_buf_attach(bufnr, false, {
        on_lines = function()
          if not attached_lines[bufnr] then return true end
          schedule_lenses(bufnr, 300)
        end,
        on_detach = function()
          attached_lines[bufnr] = nil
          local t = lens_timers[bufnr]
          if t then t:stop(); t:close(); lens_timers[bufnr] = nil end
        end,
      })
    end
  end
end

--- Exits of cwl_mcp clients that the plugin did not ask for: { id, code, signal, root, time }.
M.exits = {}
--- Client ids being stopped on purpose (:CwlMcpRestart, :LspStop through client.stop is not seen).
M.stopping = {}

function M.on_exit(code, signal, client_id)
  if M.stopping[client_id] then
    M.stopping[client_id] = nil
    return
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local root = client and client.config and client.config.root_dir or nil
  if code == 0 and signal == 0 then return end -- asked to shut down (exit after shutdown)
  table.insert(M.exits, { id = client_id, code = code, signal = signal, root = root, time = os.time() })
  local why = signal ~= 0 and ('signal %d'):format(signal) or ('exit code %d'):format(code)
  vim.schedule(function()
    vim.notify(('cwl-mcp: the language server (client %d) exited unexpectedly (%s). '
      .. ':CwlMcpRestart starts it again; :LspLog shows its stderr.'):format(client_id, why), vim.log.levels.ERROR)
  end)
end

return M
