-- Headless Neovim end-to-end test of the cwl_mcp plugin against a real server (see run.sh).
-- Opens FILE (a copy of editors/test-fixtures/broken-hint.cwl) and checks what the editor holds:
-- the buffer gets filetype cwl and the client attaches; vim.diagnostic.get(buf) holds every
-- diagnostic exactly once and the same set as `cwl-mcp-lsp check --format json` on the buffer's
-- text (a `namespace-unbound` of source cwl-mcp among them); hover on `readOnlyHint` mentions
-- "default"; completion on a new line inside `mcp:Tool` offers `useWhen`; :CwlMcpPreview shows
-- JSON with "name": "echo_region" and an inputSchema, and it follows an edit of the id; broken YAML
-- keeps the last good Tool in the preview, marked out of date, and the diagnostics follow; the
-- quick fix "Bind `agent`", chosen through vim.lsp.buf.code_action(), leaves the expected text and
-- clears `namespace-unbound`. Writes OUT (JSON) and exits non-zero when a check failed.
local json_encode = (vim.json and vim.json.encode) or vim.fn.json_encode
local json_decode = (vim.json and vim.json.decode) or vim.fn.json_decode
local uv = vim.uv or vim.loop
local file = vim.fn.fnamemodify(assert(os.getenv('FILE'), 'FILE unset'), ':p')
local out_path = os.getenv('OUT') or 'nvim-e2e.json'
local expected = os.getenv('EXPECT_NAME') or 'echo_region'
local timeout = tonumber(os.getenv('TIMEOUT_MS') or '20000')
local v = vim.version()
local res = { nvim = ('%d.%d.%d'):format(v.major, v.minor, v.patch), mode = os.getenv('MODE') or 'enable',
              checks = {}, order = {}, t_ms = {} }
local t0 = uv.hrtime()
local function mark(k) res.t_ms[k] = math.floor((uv.hrtime() - t0) / 1e6) end
local function check(name, ok, detail)
  res.checks[name] = { ok = ok and true or false, detail = detail }
  table.insert(res.order, name)
  local d = type(detail) == 'string' and detail or vim.inspect(detail, { newline = ' ', indent = '' })
  io.stdout:write(('%s %s: %s\n'):format(ok and 'ok  ' or 'FAIL', name, d:gsub('%s+', ' '):sub(1, 300)))
end

local cwl = require('cwl_mcp')
-- The test runs in a coroutine resumed from the main loop, so that keys fed with nvim_feedkeys
-- are typed by Neovim itself (insert mode, the completion menu, CompleteDone) while it sleeps.
local function sleep(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    local ok, err = coroutine.resume(co)
    if not ok then io.stdout:write('FAIL coroutine: ' .. tostring(err) .. '\n'); vim.cmd('cquit! 1') end
  end, ms)
  coroutine.yield()
end
local function sleep_until(fn, ms)
  local deadline = uv.now() + ms
  while not fn() and uv.now() < deadline do sleep(20); uv.update_time() end
  return fn()
end
local function feed(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'nt', false)
end

local function main()
local ok_run, err_run = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local function line_of(pat)
    for i, l in ipairs(lines) do if l:match(pat) then return i - 1, l end end
    error('fixture has no line matching ' .. pat)
  end

  -- attach
  local client
  vim.wait(timeout, function()
    client = cwl.clients(buf)[1]
    return client ~= nil and client.initialized == true
  end, 20)
  mark('attached')
  check('attach', vim.bo[buf].filetype == 'cwl' and client ~= nil and client.initialized,
    { filetype = vim.bo[buf].filetype, client = client and client.name or false })
  if not client then return end
  res.server_info = client.server_info or vim.NIL

  -- diagnostics: what vim.diagnostic.get(buf) holds (every namespace: 0.11 has a pull one beside
  -- the push one) against what `cwl-mcp-lsp check --format json` reports for the buffer's text
  local SEV = { error = 1, warning = 2, information = 3, hint = 4 }
  local function key(d)
    return ('%d:%d-%d:%d %s %s %s'):format(d.lnum, d.col, d.end_lnum, d.end_col, d.severity, tostring(d.code), d.message)
  end
  local function editor_diags()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      table.insert(out, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
                          severity = d.severity, source = d.source, code = code, message = d.message })
    end
    table.sort(out, function(a, b) return key(a) < key(b) end)
    return out
  end
  -- check on a copy of the buffer in a folder of its own (so that the server does not see it)
  local check_dir = vim.fn.tempname()
  vim.fn.mkdir(check_dir, 'p')
  local function check_diags()
    local path = check_dir .. '/' .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t')
    vim.fn.writefile(vim.api.nvim_buf_get_lines(buf, 0, -1, false), path)
    local outp = vim.fn.system({ os.getenv('CWL_MCP_LSP'), 'check', '--format', 'json', path })
    local okj, list = pcall(json_decode, outp)
    assert(okj and type(list) == 'table', 'check --format json printed ' .. outp:sub(1, 200))
    local out = {}
    for _, d in ipairs(list) do -- 1-based line/column, end exclusive -> 0-based
      table.insert(out, { lnum = d.line - 1, col = d.column - 1, end_lnum = d.endLine - 1, end_col = d.endColumn - 1,
                          severity = SEV[d.severity], source = 'cwl-mcp', code = d.code, message = d.message })
    end
    if os.getenv('E2E_FAKE_DUPLICATE') == 'check' and out[1] then table.insert(out, out[1]) end -- to see it fail
    table.sort(out, function(a, b) return key(a) < key(b) end)
    return out
  end
  -- (lnum, col, code, message) seen more than once
  local function duplicates(ds)
    local seen, dup = {}, {}
    for _, d in ipairs(ds) do
      local k = ('%d:%d %s %s'):format(d.lnum, d.col, tostring(d.code), d.message)
      if seen[k] then table.insert(dup, k) end
      seen[k] = true
    end
    return dup
  end
  local function same(a, b)
    if #a ~= #b then return false end
    for i = 1, #a do
      if key(a[i]) ~= key(b[i]) or a[i].source ~= b[i].source then return false end
    end
    return true
  end
  -- waits until the editor holds the set check reports, then a while longer (a late push or
  -- pull result would add a second copy), and compares again
  local function diagnostics_match(name, extra_ok, extra)
    local want = check_diags()
    vim.wait(timeout, function() return same(editor_diags(), want) end, 20)
    if os.getenv('E2E_FAKE_DUPLICATE') == 'editor' then -- to see it fail: a second copy, as push + pull would give
      local d = vim.diagnostic.get(buf)[1]
      if d then vim.diagnostic.set(vim.api.nvim_create_namespace('e2e_fake_duplicate'), buf, { d }) end
    end
    vim.wait(600, function() return false end, 50)
    local got = editor_diags()
    local dup = duplicates(got)
    local ok = same(got, want) and #dup == 0 and (extra_ok == nil or extra_ok(got))
    local detail = { duplicates = dup, editor = #got, check = #want }
    if not ok then
      detail.only_in_editor, detail.only_in_check = {}, {}
      local kw, kg = {}, {}
      for _, d in ipairs(want) do kw[key(d)] = (kw[key(d)] or 0) + 1 end
      for _, d in ipairs(got) do kg[key(d)] = (kg[key(d)] or 0) + 1 end
      for k, n in pairs(kg) do if n > (kw[k] or 0) then table.insert(detail.only_in_editor, k) end end
      for k, n in pairs(kw) do if n > (kg[k] or 0) then table.insert(detail.only_in_check, k) end end
    end
    for k, v in pairs(extra or {}) do detail[k] = v end
    check(name, ok, detail)
    return got
  end
  local function has_code(ds, code)
    for _, d in ipairs(ds) do
      if d.source == 'cwl-mcp' and d.code == code then return true end
    end
    return false
  end
  res.diagnostics = diagnostics_match('diagnostics', function(ds) return has_code(ds, 'namespace-unbound') end)
  mark('diagnostics')

  local uri = vim.uri_from_bufnr(buf)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  res.capabilities = caps
  local cap_of = { ['textDocument/hover'] = 'hoverProvider', ['textDocument/completion'] = 'completionProvider',
                   ['textDocument/codeAction'] = 'codeActionProvider' }
  local function request(method, params)
    -- fail fast (instead of waiting for the timeout) when the server does not offer the method
    if cap_of[method] and not caps[cap_of[method]] then
      return nil, ('the server does not advertise %s'):format(cap_of[method])
    end
    local r = vim.lsp.buf_request_sync(buf, method, params, timeout) or {}
    for id, x in pairs(r) do
      if id == client.id then return x.result, x.error or x.err end
    end
    return nil, 'no response'
  end

  -- hover
  local hl, htext = line_of('^%s+readOnlyHint:')
  local hcol = htext:find('readOnlyHint', 1, true) + 1
  local hover, herr = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = hl, character = hcol } })
  local text = ''
  if hover and hover ~= vim.NIL then
    local c = hover.contents
    if type(c) == 'string' then text = c
    elseif c.value then text = c.value
    else
      local parts = {}
      for _, x in ipairs(c) do table.insert(parts, type(x) == 'table' and x.value or x) end
      text = table.concat(parts, '\n')
    end
  end
  mark('hover')
  res.hover = text
  check('hover', text:lower():find('default', 1, true) ~= nil, herr and vim.inspect(herr) or text)

  -- completion on a new line inside mcp:Tool
  local tl = line_of('^    title:')
  vim.api.nvim_buf_set_lines(buf, tl + 1, tl + 1, false, { '    ' })
  local comp, cerr = request('textDocument/completion', { textDocument = { uri = uri },
    position = { line = tl + 1, character = 4 }, context = { triggerKind = 1 } })
  local labels = {}
  local items = (comp and comp ~= vim.NIL) and (comp.items or comp) or {}
  for _, it in ipairs(items) do table.insert(labels, it.label) end
  mark('completion')
  res.completion = labels
  check('completion', vim.tbl_contains(labels, 'useWhen'), cerr and vim.inspect(cerr) or labels)
  vim.api.nvim_buf_set_lines(buf, tl + 1, tl + 2, false, {})

  -- informational: the code actions offered in the hint (not asserted)
  local ca = request('textDocument/codeAction', { textDocument = { uri = uri },
    range = { start = { line = tl, character = 0 }, ['end'] = { line = tl, character = 4 } }, context = { diagnostics = {} } })
  res.code_actions = {}
  for _, a in ipairs((ca and ca ~= vim.NIL) and ca or {}) do table.insert(res.code_actions, a.title) end

  -- :CwlMcpPreview
  local commands = (caps.executeCommandProvider or {}).commands or {}
  res.execute_commands = commands
  if not vim.tbl_contains(commands, 'cwl-mcp.previewTool') then
    io.stdout:write('note: the server does not list cwl-mcp.previewTool in executeCommandProvider.commands\n')
  end
  vim.cmd('CwlMcpPreview')
  local preview = require('cwl_mcp.preview')
  local function preview_text()
    local pb = preview.buffer(buf)
    if not pb then return '' end
    return table.concat(vim.api.nvim_buf_get_lines(pb, 0, -1, false), '\n')
  end
  local want = ('"name": "%s"'):format(expected)
  -- done when the Tool came, or when the server answered with an error (rendered as // comments)
  vim.wait(timeout, function()
    local t = preview_text()
    return t:find(want, 1, true) ~= nil or t:find('^// CWL MCP: no') ~= nil or t:find('^// CWL MCP: the server') ~= nil
  end, 20)
  mark('preview')
  local ptext = preview_text()
  res.preview = ptext:sub(1, 2000)
  local okj, tool = pcall(json_decode, ptext)
  local pb = preview.buffer(buf)
  check('preview', okj and type(tool) == 'table' and tool.name == expected and type(tool.inputSchema) == 'table'
      and pb ~= nil and vim.fn.bufwinid(pb) ~= -1 and vim.api.nvim_get_current_buf() == buf,
    okj and { name = type(tool) == 'table' and tool.name or tool, visible = pb and vim.fn.bufwinid(pb) ~= -1 } or ptext:sub(1, 200))

  -- settings reach the server: the aliases' `_meta` key carries the metaPrefix
  local want_key = (os.getenv('EXPECT_META_PREFIX') or 'io.github.eoap/cwl-mcp-extension') .. '-aliases'
  local meta = okj and type(tool) == 'table' and tool._meta or nil
  check('settings', type(meta) == 'table' and meta[want_key] ~= nil,
    { want = want_key, _meta = meta or vim.NIL, settings = client.config.settings })

  -- the preview follows edits
  if not res.checks.preview.ok then
    check('refresh', false, 'skipped: no preview')
    return
  end
  local il, itext = line_of('^id:')
  vim.api.nvim_buf_set_text(buf, il, #itext, il, #itext, { '2' })
  local want2 = ('"name": "%s2"'):format(expected)
  vim.wait(timeout, function() return preview_text():find(want2, 1, true) ~= nil end, 20)
  mark('refresh')
  check('refresh', preview_text():find(want2, 1, true) ~= nil, preview_text():sub(1, 120))

  -- broken YAML (`title: [Echo a region`): the server answers the preview with an error; the
  -- preview keeps the last good Tool, marked out of date, with the reason above it; the
  -- diagnostics follow the text; removing the `[` brings the fresh Tool back
  local preview_buf = preview.buffer(buf)
  local tcol = #'    title: '
  vim.api.nvim_buf_set_text(buf, tl, tcol, tl, tcol, { '[' })
  local stale_mark = '// ' .. preview.STALE_MARK
  vim.wait(timeout, function() return preview_text():sub(1, #stale_mark) == stale_mark end, 20)
  mark('preview_stale')
  local stale = preview_text()
  local stale_lines = vim.split(stale, '\n', { plain = true })
  local head = {}
  for _, l in ipairs(stale_lines) do if l:sub(1, 2) == '//' then table.insert(head, l) else break end end
  local body = table.concat(stale_lines, '\n', #head + 1)
  local okb, last_good = pcall(json_decode, body)
  check('preview-stale', stale:sub(1, #stale_mark) == stale_mark and stale:lower():find('yaml', 1, true) ~= nil
      and okb and type(last_good) == 'table' and last_good.name == expected .. '2'
      and vim.b[preview_buf].cwl_mcp_preview_stale == true,
    { header = head, last_good = okb and type(last_good) == 'table' and last_good.name or body:sub(1, 80),
      stale_flag = vim.b[preview_buf].cwl_mcp_preview_stale })
  res.preview_stale = stale:sub(1, 600)
  diagnostics_match('diagnostics-broken-yaml', function(ds)
    for _, d in ipairs(ds) do if d.severity == 1 then return true end end
    return false
  end)
  vim.api.nvim_buf_set_text(buf, tl, tcol, tl, tcol + 1, { '' })
  vim.wait(timeout, function()
    local okf, t = pcall(json_decode, preview_text())
    return okf and type(t) == 'table' and t.name == expected .. '2'
  end, 20)
  mark('preview_recovers')
  local okf, fresh = pcall(json_decode, preview_text())
  check('preview-recovers', okf and type(fresh) == 'table' and fresh.name == expected .. '2'
      and vim.b[preview_buf].cwl_mcp_preview_stale == false, preview_text():sub(1, 80))

  -- the server's code action with the command cwl-mcp.previewTool opens the same preview
  -- (the plugin handles that command on the client side); vim.lsp.buf.code_action({apply}) is 0.8+
  if vim.fn.has('nvim-0.8') == 1 then
    vim.cmd('CwlMcpPreviewClose')
    vim.api.nvim_win_set_cursor(0, { tl + 1, 5 })
    local function is_preview(a)
      local c = a.command
      return (type(c) == 'table' and c.command or c) == 'cwl-mcp.previewTool'
    end
    vim.lsp.buf.code_action({ apply = true, filter = is_preview })
    vim.wait(timeout, function() return preview_text():find(want2, 1, true) ~= nil end, 20)
    mark('code_action_preview')
    check('code-action', preview_text():find(want2, 1, true) ~= nil,
      { offered = res.code_actions, preview = preview_text():sub(1, 60) })
  end

  -- a quick fix chosen as a user does: vim.lsp.buf.code_action() with the cursor on `agent:Tool`
  -- (namespace-unbound), "Bind `agent` ..." picked in vim.ui.select; the buffer gets the binding
  -- and the diagnostics become check's for the new text, without namespace-unbound
  local al = line_of('^  agent:Tool:')
  local ml = line_of('^  mcp: ')
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { al + 1, 2 })
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local want_lines = vim.list_extend({}, before)
  table.insert(want_lines, ml + 2, '  agent: https://eoap.github.io/cwl-mcp-extension#')
  local offered, select_ui = nil, vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    for _, it in ipairs(items) do
      table.insert(offered, opts and opts.format_item and opts.format_item(it) or vim.inspect(it))
    end
    for i, t in ipairs(offered) do
      if t:find('Bind `agent`', 1, true) then return on_choice(items[i], i) end
    end
    on_choice(nil, nil)
  end
  vim.lsp.buf.code_action()
  vim.wait(timeout, function() return #vim.api.nvim_buf_get_lines(buf, 0, -1, false) ~= #before end, 20)
  vim.ui.select = select_ui
  mark('quick_fix')
  local after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local changed = {}
  for i = 1, math.max(#after, #want_lines) do
    if after[i] ~= want_lines[i] then table.insert(changed, { line = i, got = after[i] or vim.NIL, want = want_lines[i] or vim.NIL }) end
  end
  check('quick-fix', #changed == 0, { offered = offered or 'vim.ui.select was not called', differences = changed })
  diagnostics_match('quick-fix-diagnostics', function(ds) return not has_code(ds, 'namespace-unbound') end)

  -- completion as a user gets it: editors/test-fixtures/complete.cwl (no MCP hint yet), a new
  -- line `  ` at the end of its `hints:`; Neovim's own menu (<C-x><C-o>, <C-n>, <C-y>) accepts
  -- (a) the map-form `mcp:Tool` item, (b) the `annotations` item inside the hint, (c) the value
  -- of `destructiveHint` with `readOnlyHint: true`; after each, the buffer is exactly the YAML
  -- expected (no NUL, line breaks and indentation kept, valid defaults filled in), and the
  -- diagnostics then are check's, with no invalid-type or yaml-syntax among them
  local cfile = vim.fn.fnamemodify(file, ':h') .. '/complete.cwl'
  vim.cmd('edit ' .. vim.fn.fnameescape(cfile))
  buf = vim.api.nvim_get_current_buf()
  vim.wait(timeout, function()
    local c = cwl.clients(buf)[1]
    return c ~= nil and c.initialized == true
  end, 20)
  vim.o.completeopt = 'menu,menuone,noselect'
  if os.getenv('E2E_PLUGIN_COMPLETION') == 'off' then -- Neovim's own machinery only, as a user would enable it
    local c = cwl.clients(buf)[1]
    if vim.lsp.completion then vim.lsp.completion.enable(true, c.id, buf, { autotrigger = false }) end
    if vim.bo[buf].omnifunc == '' then vim.bo[buf].omnifunc = 'v:lua.vim.lsp.omnifunc' end
  end
  local base = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local function text_now() return vim.api.nvim_buf_get_lines(buf, 0, -1, false) end
  local function diff(got, want)
    local out = {}
    for i = 1, math.max(#got, #want) do
      if got[i] ~= want[i] then
        table.insert(out, { line = i, got = got[i] and got[i]:gsub('%z', '^@'):gsub('\n', '^@') or vim.NIL, want = want[i] or vim.NIL })
      end
    end
    return out
  end
  res.completion_items = {}
  -- opens the menu at the cursor (insert mode), picks the item labelled `label` (or the first)
  -- and accepts it with <C-y>; returns the menu's labels and the word of the accepted item
  local function accept(step, label)
    feed('<C-x><C-o>')
    sleep_until(function() return vim.fn.pumvisible() == 1 end, timeout)
    local items = vim.fn.complete_info({ 'items' }).items or {}
    local labels, pick = {}, nil
    for i, it in ipairs(items) do
      table.insert(labels, it.abbr)
      if not pick and (label == nil or it.abbr == label) then pick = i end
    end
    res.completion_items[step] = labels
    if not pick then feed('<C-e>'); sleep(50); return labels, nil end
    feed(('<C-n>'):rep(pick) .. '<C-y>')
    local before = vim.b[buf].changedtick
    sleep_until(function() return vim.fn.pumvisible() == 0 end, 2000)
    sleep(150) -- CompleteDone handlers, snippet expansion
    return labels, items[pick].word, before
  end
  local function no_nul(lines)
    for _, l in ipairs(lines) do if l:find('[%z\n]') then return false end end
    return true
  end

  -- (a) the map-form hint item on `  ` under `hints:`
  vim.api.nvim_buf_set_lines(buf, #base, #base, false, { '  ' })
  vim.api.nvim_win_set_cursor(0, { #base + 1, 2 })
  feed('A')
  sleep(50)
  local labels_a = accept('hint', 'mcp:Tool')
  local want_a = vim.list_extend(vim.list_extend({}, base), { '  mcp:Tool:', '    ' })
  local got_a = text_now()
  local cur_a = vim.api.nvim_win_get_cursor(0)
  check('complete-hint', vim.deep_equal(got_a, want_a) and cur_a[1] == #want_a and cur_a[2] == 4 and no_nul(got_a),
    { offered = labels_a, differences = diff(got_a, want_a), cursor = cur_a, mode = vim.api.nvim_get_mode().mode })
  mark('complete_hint')

  -- (b) the `annotations` item, from the cursor left on the hint's first field line
  local labels_b = accept('annotations', 'annotations')
  feed('<Esc>') -- leaves insert / snippet (select) mode
  sleep(100)
  local want_b = vim.list_extend(vim.list_extend({}, base), {
    '  mcp:Tool:',
    '    annotations:',
    '      readOnlyHint: false',
    '      destructiveHint: true',
    '      idempotentHint: false',
    '      openWorldHint: true',
  })
  local got_b = text_now()
  check('complete-annotations', vim.deep_equal(got_b, want_b) and no_nul(got_b),
    { offered = labels_b, differences = diff(got_b, want_b), mode = vim.api.nvim_get_mode().mode })
  mark('complete_annotations')

  -- (c) with `readOnlyHint: true`, the value of `destructiveHint`: the first item is `false`
  local ro = #base + 3
  vim.api.nvim_buf_set_lines(buf, ro - 1, ro + 1, false, { '      readOnlyHint: true', '      destructiveHint: ' })
  vim.api.nvim_win_set_cursor(0, { ro + 1, 0 })
  feed('A')
  sleep(50)
  local labels_c, word_c = accept('value', nil)
  feed('<Esc>')
  sleep(100)
  local want_c = vim.list_extend({}, want_b)
  want_c[ro] = '      readOnlyHint: true'
  want_c[ro + 1] = '      destructiveHint: false'
  local got_c = text_now()
  check('complete-value', vim.deep_equal(got_c, want_c) and no_nul(got_c),
    { offered = labels_c, accepted = word_c or vim.NIL, differences = diff(got_c, want_c) })
  mark('complete_value')
  res.completed_text = table.concat(got_c, '\n', #base + 1)
  diagnostics_match('complete-diagnostics', function(ds)
    for _, d in ipairs(ds) do
      if d.code == 'invalid-type' or d.code == 'yaml-syntax' then return false end
    end
    return true
  end)

  -- code lenses without any vim.lsp.codelens.refresh() from the user: the plugin refreshes them
  -- on attach and after changes (the lens names the Tool of the current text)
  local function lens_titles()
    local t = {}
    for _, l in ipairs(vim.lsp.codelens.get(buf) or {}) do
      if l.command and l.command.title then table.insert(t, l.command.title) end
    end
    return t
  end
  local function lens_has(s)
    for _, t in ipairs(lens_titles()) do if t:find(s, 1, true) then return true end end
    return false
  end
  sleep_until(function() return lens_has('echo_region') end, timeout)
  local lens_before = lens_titles()
  local cid
  for i, l in ipairs(text_now()) do if l:match('^id:') then cid = i - 1 end end
  vim.api.nvim_buf_set_lines(buf, cid, cid + 1, false, { 'id: lens-follows' })
  sleep_until(function() return lens_has('lens_follows') end, timeout)
  mark('codelens')
  check('codelens', #lens_before > 0 and lens_has('lens_follows'), { before = lens_before, after = lens_titles() })

  -- the server dies (SIGKILL): a message says so, :checkhealth tells the dead client from none,
  -- :CwlMcpRestart brings the client and the diagnostics back
  local messages, notify_ui = {}, vim.notify
  vim.notify = function(msg, level, o)
    table.insert(messages, msg)
    return notify_ui(msg, level, o)
  end
  local function server_pids()
    local pids, me = {}, vim.fn.getpid()
    for _, stat in ipairs(vim.fn.glob('/proc/[0-9]*/stat', false, true)) do
      local f = io.open(stat)
      local line = f and f:read('*l')
      if f then f:close() end
      local pid, comm, ppid = (line or ''):match('^(%d+) %((.-)%) %S+ (%d+)')
      if pid and tonumber(ppid) == me and comm:find('cwl%-mcp%-lsp') then table.insert(pids, tonumber(pid)) end
    end
    return pids
  end
  local pids = server_pids()
  for _, pid in ipairs(pids) do uv.kill(pid, 'sigkill') end
  sleep_until(function() return #cwl.clients(buf) == 0 end, timeout)
  sleep_until(function()
    for _, m in ipairs(messages) do if m:find('exited unexpectedly', 1, true) then return true end end
    return false
  end, 3000)
  mark('crash')
  local said = table.concat(messages, ' | ')
  check('crash-message', #pids == 1 and #cwl.clients(buf) == 0 and said:find('exited unexpectedly', 1, true) ~= nil
      and said:find('CwlMcpRestart', 1, true) ~= nil, { killed = pids, messages = messages })
  local cur = vim.api.nvim_get_current_buf()
  vim.cmd('checkhealth cwl_mcp')
  local dead_health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('tabclose')
  vim.api.nvim_set_current_buf(cur)
  check('health-dead-client', dead_health:find('exited unexpectedly', 1, true) ~= nil
      and dead_health:find('ERROR', 1, true) ~= nil and dead_health:find('CwlMcpRestart', 1, true) ~= nil
      and dead_health:find('open a *.cwl file', 1, true) == nil,
    dead_health:gsub('\n', ' | '):sub(1, 400))
  vim.cmd('CwlMcpRestart')
  vim.wait(timeout, function()
    local c = cwl.clients(buf)[1]
    return c ~= nil and c.initialized == true
  end, 20)
  mark('restart')
  vim.notify = notify_ui
  diagnostics_match('restart-diagnostics', function(ds) return #ds > 0 and #cwl.clients(buf) == 1 end,
    { messages = messages })
end)
if not ok_run then check('no-error', false, tostring(err_run)) end

-- :checkhealth cwl_mcp (opens its own buffer)
local ok_h, err_h = pcall(vim.cmd, 'checkhealth cwl_mcp')
local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check('health', ok_h and health:find('server: ', 1, true) ~= nil and not health:find('ERROR', 1, true),
  ok_h and health:gsub('\n', ' | '):sub(1, 300) or tostring(err_h))

local failed, passed = 0, 0
for _, name in ipairs(res.order) do
  if res.checks[name].ok then passed = passed + 1 else failed = failed + 1 end
end
local missing = 0
for _, k in ipairs({ 'attach', 'diagnostics', 'hover', 'completion', 'preview', 'settings', 'refresh', 'preview-stale',
                     'diagnostics-broken-yaml', 'preview-recovers', 'quick-fix', 'quick-fix-diagnostics',
                     'complete-hint', 'complete-annotations', 'complete-value', 'complete-diagnostics', 'codelens',
                     'crash-message', 'health-dead-client', 'restart-diagnostics', 'health' }) do
  if not res.checks[k] then missing = missing + 1 end
end
res.passed, res.failed = passed, failed + missing
local f = assert(io.open(out_path, 'w'))
f:write(json_encode(res))
f:close()
io.stdout:write(('timings (ms): %s\n'):format(vim.inspect(res.t_ms, { newline = ' ', indent = '' })))
io.stdout:write(('nvim-e2e %s (%s): %d passed, %d failed\n'):format(res.nvim, res.mode, passed, failed + missing))
for _, c in ipairs(cwl.clients(vim.api.nvim_get_current_buf())) do
  if c.stop then pcall(function() if vim.fn.has('nvim-0.11') == 1 then c:stop() else c.stop() end end) end
end
vim.wait(2000, function() return #cwl.clients(vim.api.nvim_get_current_buf()) == 0 end, 20)
vim.cmd((failed + missing == 0) and 'qall!' or 'cquit! 1')
end

vim.schedule(function()
  local ok, err = coroutine.resume(coroutine.create(main))
  if not ok then io.stdout:write('FAIL main: ' .. tostring(err) .. '\n'); vim.cmd('cquit! 1') end
end)
