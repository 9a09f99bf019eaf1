-- End-to-end tests of the plugin in a real headless Neovim against the
-- real ctxd binary. Run by editors/nvim_test.go:
--   nvim --headless -u NONE -i NONE --cmd 'set rtp^=editors/nvim' -c 'luafile test/e2e.lua'
-- with CTXD_BIN (the binary), CTXD_TEST_REPO (a git repository the Go
-- test built), CTXD_SLOW_ROOT (a large tree, for cancellation) and
-- isolated XDG directories. Prints one line per test and
-- "N passed, N failed"; exits non-zero when a test failed.
-- vim.wait is for tests only: the plugin itself never waits.

local bin = assert(os.getenv('CTXD_BIN'), 'CTXD_BIN is not set')
local repo = assert(os.getenv('CTXD_TEST_REPO'), 'CTXD_TEST_REPO is not set')
local slow_root = os.getenv('CTXD_SLOW_ROOT')

local passed, failed = 0, 0
local function out(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local function test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    out('ok - ' .. name)
  else
    failed = failed + 1
    out('not ok - ' .. name .. '\n' .. tostring(err))
  end
end

local notes = {}
local selects = {}
local function ctxd_state()
  return require('ctxd')._state
end

local function wait_for(what, cond, ms)
  if not vim.wait(ms or 30000, cond, 20) then
    error('timed out waiting for ' .. what .. '; notifications: ' .. vim.inspect(notes) .. '; selects: ' .. vim.inspect(selects)
      .. '; state: ' .. vim.inspect({ last_error = ctxd_state().last_error, gen = ctxd_state().gen, inflight = ctxd_state().inflight }), 2)
  end
end

local function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s: want %s, got %s', what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

local function truthy(v, what)
  if not v then
    error((what or 'condition') .. ' is false', 2)
  end
end

-- Record notifications instead of showing them.
vim.notify = function(msg, level)
  notes[#notes + 1] = { msg = msg, level = level }
end
local function noted(pattern)
  for _, n in ipairs(notes) do
    if n.msg:find(pattern) then
      return n
    end
  end
end

-- vim.ui.select answers from a queue; each call is recorded.
local answers = {}
vim.ui.select = function(items, opts, on_choice)
  selects[#selects + 1] = { items = items, prompt = opts.prompt }
  local pick = table.remove(answers, 1)
  vim.schedule(function()
    on_choice(pick and pick(items) or nil)
  end)
end

local function buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

-- shows_prompt checks that the prompt buffer holds exactly the prompt
-- (the buffer has no line for the prompt's final newline).
local function shows_prompt(buf, prompt)
  local text = buf_text(buf)
  if prompt:sub(-1) == '\n' then
    text = text .. '\n'
  end
  if text ~= prompt then
    error(string.format('the prompt buffer differs from the prompt:\n%s\n----\n%s', text, prompt), 2)
  end
end

vim.cmd('cd ' .. vim.fn.fnameescape(repo))
local ctxd = require('ctxd')
local st = ctxd._state
local base = { cmd = bin, offer_resume = false, model = 'gpt-4o' }

test('setup defines the commands and finds the workspace root', function()
  ctxd.setup(base)
  for _, c in ipairs({ 'CtxPrompt', 'CtxContext', 'CtxSessions', 'CtxResume', 'CtxCancel' }) do
    eq(2, vim.fn.exists(':' .. c), ':' .. c)
  end
  eq(vim.loop.fs_realpath(repo), vim.loop.fs_realpath(ctxd.root()), 'root')
  eq({ 'debug', 'why is it wrong' }, { ctxd.parse_prompt_args('debug why is it wrong') }, 'task parsed')
  eq({ 'auto', 'debugging tips' }, { ctxd.parse_prompt_args('debugging tips') }, 'no task')
end)

test(':CtxPrompt puts the envelope prompt in a markdown scratch buffer', function()
  vim.cmd('edit cart/cart.go')
  local src = vim.api.nvim_get_current_buf()
  -- An unsaved change: the daemon must see the buffer, not the disk.
  vim.api.nvim_buf_set_lines(src, 0, 1, false, { 'package cart // UNSAVED_MARKER' })
  vim.api.nvim_win_set_cursor(0, { 12, 0 })
  vim.cmd('CtxPrompt debug why does Total return the wrong count')
  truthy(st.envelope == nil, 'the command returned before the answer (async)')
  wait_for('the prompt', function()
    return st.envelope ~= nil
  end)
  local env = st.envelope
  local buf = st.prompt_buf
  truthy(buf and vim.api.nvim_buf_is_valid(buf), 'prompt buffer')
  eq('markdown', vim.bo[buf].filetype, 'filetype')
  eq('nofile', vim.bo[buf].buftype, 'buftype')
  shows_prompt(buf, env.prompt)
  truthy(env.prompt:find('UNSAVED_MARKER', 1, true), 'the prompt holds the unsaved buffer text')
  eq('debug', env.task_type, 'task')
  eq(st.session_id, env.session_id, 'session recorded')
  eq(vim.loop.fs_realpath(repo), vim.loop.fs_realpath(env.root), 'envelope root')
  local chunk
  for _, c in ipairs(env.context.chunks) do
    if c.source == 'cart/cart.go' then
      chunk = c
    end
  end
  truthy(chunk, 'a chunk for the current buffer')
  eq(12, chunk.facts.cursor, 'cursor line sent')
  eq('critical', chunk.priority, 'open file priority')
  truthy(st.conn.transport:find('^lsp'), 'vim.lsp.rpc transport on this Neovim: ' .. tostring(st.conn.transport))
  truthy(noted('prompt: %d+ tokens'), 'a summary notification')
end)

test('the request carries the cursor, the range as selection and unsaved buffers', function()
  local src = vim.fn.bufnr('cart/cart.go')
  vim.cmd('buffer ' .. src)
  vim.api.nvim_win_set_cursor(0, { 14, 0 })
  local p = ctxd.prompt_params('debug', 'fix it', { 13, 18 })
  eq('cart/cart.go', p.open_files[1].path, 'current buffer first')
  eq(14, p.open_files[1].line, 'cursor')
  eq({ start = 13, ['end'] = 18 }, p.open_files[1].selection, 'selection')
  truthy(p.open_files[1].text:find('UNSAVED_MARKER', 1, true), 'unsaved text')
  eq('debug', p.task_type, 'task')
  eq(st.session_id, p.session_id, 'session')
  eq('gpt-4o', p.model, 'model from setup')
  -- Error diagnostics become error text for debug, and only for debug.
  local ns = vim.api.nvim_create_namespace('ctxd-test')
  vim.diagnostic.set(ns, src, {
    { lnum = 16, col = 0, severity = vim.diagnostic.severity.ERROR, message = 'invalid operation', source = 'compiler' },
    { lnum = 2, col = 0, severity = vim.diagnostic.severity.WARN, message = 'just a warning' },
  })
  p = ctxd.prompt_params('debug', 'fix it', nil)
  eq('fix it\n\nCurrent errors:\ncart/cart.go:17: compiler: invalid operation', p.user_request, 'error text')
  eq('fix it', ctxd.prompt_params('implement', 'fix it', nil).user_request, 'no error text for implement')
  vim.diagnostic.reset(ns, src)
end)

test(':CtxPrompt! yanks the prompt to the register', function()
  local before = st.envelope
  vim.fn.setreg('"', 'old')
  vim.cmd('CtxPrompt! test write a table-driven test for Cart.Total')
  wait_for('the second prompt', function()
    return st.envelope ~= before
  end)
  eq('test', st.envelope.task_type, 'task')
  eq(st.envelope.prompt, vim.fn.getreg('"'), 'register')
end)

test(':CtxContext fills the quickfix list with the chunks', function()
  vim.cmd('CtxContext')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  local env = st.envelope
  eq(#env.context.chunks + #(env.context.skipped or {}), #qf.items, 'one item per chunk and skipped chunk')
  truthy(qf.title:find('^ctxd: test'), 'title: ' .. qf.title)
  local files = 0
  for i, c in ipairs(env.context.chunks) do
    local it = qf.items[i]
    if c.chunk_type == 'file' then
      files = files + 1
      eq(vim.loop.fs_realpath(repo .. '/' .. c.source), vim.loop.fs_realpath(vim.api.nvim_buf_get_name(it.bufnr)), 'item file')
      truthy(it.lnum >= 1, 'line')
      truthy(it.text:find(c.priority, 1, true) and it.text:find(c.tokens .. ' tok', 1, true), 'item text: ' .. it.text)
    else
      truthy(it.text:find(c.source, 1, true), 'synthetic chunk named: ' .. it.text)
    end
  end
  truthy(files >= 1, 'file chunks in quickfix')
  vim.cmd('cclose')
end)

test(':CtxContext {request} gathers afresh', function()
  local before = st.envelope
  vim.cmd('CtxContext analyze the cart package structure')
  wait_for('the gathered envelope', function()
    return st.envelope ~= before
  end)
  truthy((st.envelope.prompt or '') == '', 'ctx/gather has no prompt')
  eq(#st.envelope.context.chunks + #(st.envelope.context.skipped or {}), #vim.fn.getqflist(), 'quickfix items')
  vim.cmd('cclose')
end)

test('a superseded request is cancelled and its answer dropped', function()
  local dropped = st.dropped
  local first_cb, second_cb = false, false
  local p1 = ctxd.prompt_params('auto', 'first request FIRST_ONE', nil)
  local p2 = ctxd.prompt_params('auto', 'second request SECOND_ONE', nil)
  ctxd.request('prompt', 'ctx/buildPrompt', p1, function()
    first_cb = true
  end)
  ctxd.request('prompt', 'ctx/buildPrompt', p2, function(err, env)
    second_cb = true
    truthy(not err, 'second request: ' .. vim.inspect(err))
    st.envelope = env
  end)
  wait_for('the second answer', function()
    return second_cb
  end)
  truthy(not first_cb, 'the first callback never ran')
  truthy(st.dropped > dropped, 'the first answer was dropped')
  truthy(st.envelope.user_request:find('SECOND_ONE', 1, true), 'the envelope is the newest request')
end)

test('the resume flow: the offer on opening a workspace, :CtxSessions and :CtxResume', function()
  local session = st.session_id
  ctxd.stop()
  -- Change a recorded file on disk while no daemon runs (and drop the
  -- unsaved buffer, which would win over the disk).
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('cart/cart.go', 1, true) then
      vim.api.nvim_buf_delete(b, { force = true })
    end
  end
  local path = repo .. '/cart/cart.go'
  local f = assert(io.open(path, 'ab'))
  f:write('\n// changed while away\n')
  f:close()
  -- setup with offer_resume after VimEnter offers at once (scheduled).
  notes = {}
  answers = {
    function(items)
      return items[1]
    end,
  }
  local offers = #selects
  ctxd.setup(vim.tbl_extend('force', base, { offer_resume = true }))
  -- This script runs from -c, before VimEnter: setup registered the
  -- autocommand, which fires now as it would once startup ends.
  eq(0, vim.v.vim_did_enter, 'still starting up')
  vim.cmd('doautocmd VimEnter')
  wait_for('the resume', function()
    return noted('resumed session') ~= nil
  end)
  local offer = selects[offers + 1]
  eq({ 'Resume', 'Not now' }, offer.items, 'offer choices')
  truthy(offer.prompt:find(session, 1, true), 'the offer names the session: ' .. offer.prompt)
  local msg = noted('resumed session').msg
  truthy(msg:find('1 changed', 1, true), msg)
  eq(session, st.session_id, 'the resumed session records the next prompts')
  truthy(st.envelope.prompt and st.envelope.prompt:find('changed while away', 1, true), 'the rebuilt prompt reads the file as it is now')
  shows_prompt(st.prompt_buf, st.envelope.prompt)

  -- "Not now" resumes nothing.
  notes = {}
  answers = {
    function()
      return 'Not now'
    end,
  }
  local n = #selects
  ctxd.offer_resume()
  wait_for('the second offer', function()
    return #selects > n
  end)
  vim.wait(50)
  truthy(noted('resumed session') == nil, 'declined offer resumes nothing')

  -- :CtxSessions lists the sessions and resumes the one picked.
  notes = {}
  answers = {
    function(items)
      return items[1]
    end,
  }
  n = #selects
  vim.cmd('CtxSessions')
  wait_for('the session pick and resume', function()
    return noted('resumed session') ~= nil
  end)
  eq(session, selects[n + 1].items[1].session_id, 'listed session')

  -- :CtxResume without an id resumes the newest running session.
  notes = {}
  vim.cmd('CtxResume')
  wait_for(':CtxResume', function()
    return noted('resumed session ' .. session:gsub('%-', '%%-')) ~= nil
  end)
end)

test('the jobstart transport with our own framing', function()
  ctxd.stop()
  ctxd.setup(vim.tbl_extend('force', base, { transport = 'job' }))
  local before = st.envelope
  vim.cmd('CtxPrompt implement add a Clear method to Cart')
  wait_for('the prompt over jobstart', function()
    return st.envelope ~= before
  end)
  eq('job', st.conn.transport, 'transport')
  eq('implement', st.envelope.task_type, 'task')
  shows_prompt(st.prompt_buf, st.envelope.prompt)
end)

test('a daemon that dies is reported and started again by the next command', function()
  notes = {}
  local pid = st.conn.pid
  vim.loop.kill(pid, 'sigkill')
  wait_for('the exit notice', function()
    return noted('ctxd exited') ~= nil
  end)
  local before = st.envelope
  vim.cmd('CtxPrompt analyze summarize the repository')
  wait_for('the prompt from a new daemon', function()
    return st.envelope ~= before
  end)
  truthy(st.conn.pid ~= pid, 'a new process')
end)

test('setup{ cmd = { ... } } takes a list: a wrapper, then the binary', function()
  ctxd.stop()
  ctxd.setup(vim.tbl_extend('force', base, { cmd = { 'env', 'CTXD_WRAPPED=1', bin } }))
  local before = st.envelope
  vim.cmd('CtxPrompt analyze summarize the repository')
  wait_for('the prompt from a daemon started with a cmd list', function()
    return st.envelope ~= before
  end)
  ctxd.stop()
  ctxd.setup(base)
end)

test('a 0.10-style vim.lsp.rpc.start(cmd_list, dispatchers, extra) is called with its signature', function()
  -- Neovim 0.10+ cannot be installed here (Debian ships 0.7.2), so this
  -- stands in a start with 0.10's parameter list that forwards to the
  -- real 0.7 one; the daemon it starts is real.
  ctxd.stop()
  local real = require('vim.lsp.rpc')
  local calls = {}
  package.loaded['vim.lsp.rpc'] = setmetatable({
    start = function(cmd, dispatchers, extra)
      calls[#calls + 1] = { cmd = cmd, extra = extra }
      return real.start(cmd[1], vim.list_slice(cmd, 2), dispatchers, extra)
    end,
  }, { __index = real })
  local ok, err = pcall(function()
    ctxd.setup(base)
    local before = st.envelope
    vim.cmd('CtxPrompt analyze what does the cart package do')
    wait_for('the prompt', function()
      return st.envelope ~= before
    end)
  end)
  package.loaded['vim.lsp.rpc'] = real
  truthy(ok, tostring(err))
  eq(1, #calls, 'start calls')
  eq(bin, calls[1].cmd[1], 'cmd list starts with the binary')
  eq('serve', calls[1].cmd[2], 'then serve')
  truthy(st.conn.transport:find('{cmd, ...}', 1, true), st.conn.transport)
  ctxd.stop()
end)

if slow_root and slow_root ~= '' then
  test(':CtxCancel cancels a running request', function()
    ctxd.stop()
    ctxd.setup(vim.tbl_extend('force', base, { root = slow_root }))
    local before = st.envelope
    notes = {}
    vim.cmd('CtxPrompt how does the http server handle keep-alive connections')
    wait_for('the request in flight', function()
      return st.inflight.prompt ~= nil
    end)
    vim.cmd('CtxCancel')
    truthy(noted('cancelled 1 request'), 'cancel notice')
    local counted
    ctxd.request('count', 'ctx/countTokens', { text = 'after cancel' }, function(err, res)
      counted = err or res
    end)
    wait_for('the next request', function()
      return counted ~= nil
    end)
    truthy(counted.tokens and counted.tokens > 0, 'the daemon serves the next request: ' .. vim.inspect(counted))
    eq(before, st.envelope, 'the cancelled prompt never lands')
    truthy(noted('failed') == nil, 'no error shown for a cancel')
  end)
end

test('a missing binary gives a clear message', function()
  ctxd.stop()
  ctxd.setup(vim.tbl_extend('force', base, { cmd = '/nonexistent/bin/ctxd' }))
  notes = {}
  vim.cmd('CtxPrompt anything at all')
  wait_for('the error', function()
    return #notes > 0
  end)
  local n = notes[1]
  eq(vim.log.levels.ERROR, n.level, 'level')
  truthy(n.msg:find("binary '/nonexistent/bin/ctxd' not found", 1, true), n.msg)
  truthy(n.msg:find('setup{ cmd', 1, true), 'names the setting: ' .. n.msg)
  vim.cmd('silent! checkhealth ctxd')
  local health = buf_text(0)
  truthy(health:find('not found or not executable', 1, true), 'checkhealth reports it:\n' .. health)
  vim.cmd('bwipeout!')
end)

test(':checkhealth ctxd', function()
  ctxd.setup(base)
  vim.cmd('checkhealth ctxd')
  local health = buf_text(0)
  truthy(health:find('ctxd: daemon', 1, true), health)
  truthy(health:find('binary: ' .. bin, 1, true), health)
  truthy(health:find('version: ctxd', 1, true), health)
  truthy(health:find('transport: vim.lsp.rpc.start', 1, true), health)
  truthy(not health:find('ERROR', 1, true), health)
  vim.cmd('bwipeout!')
end)

test(':help ctxd opens the help page, with a tag per command', function()
  -- helptags writes doc/tags: on a copy of doc/ in a temporary runtime
  -- directory, so the checkout stays clean.
  local src = vim.api.nvim_get_runtime_file('doc/ctxd.txt', false)[1]
  truthy(src, 'doc/ctxd.txt is not on the runtime path')
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/doc', 'p')
  vim.fn.writefile(vim.fn.readfile(src), dir .. '/doc/ctxd.txt')
  vim.opt.rtp:prepend(dir)
  vim.cmd('helptags ' .. vim.fn.fnameescape(dir .. '/doc'))
  vim.cmd('help ctxd')
  eq('help', vim.bo.filetype, 'filetype')
  eq('ctxd.txt', vim.fn.expand('%:t'), 'help file')
  truthy(vim.api.nvim_get_current_line():find('*ctxd*', 1, true), vim.api.nvim_get_current_line())
  for _, tag in ipairs({ ':CtxPrompt', ':CtxContext', ':CtxSessions', ':CtxResume', ':CtxCancel', 'ctxd-health' }) do
    vim.cmd('help ' .. tag)
    truthy(vim.api.nvim_get_current_line():find('*' .. tag .. '*', 1, true), tag .. ': ' .. vim.api.nvim_get_current_line())
  end
  vim.cmd('helpclose')
end)

ctxd.stop()
out(string.format('%d passed, %d failed', passed, failed))
if failed > 0 then
  vim.cmd('cquit')
else
  vim.cmd('qall!')
end
