-- ctxd for Neovim: a thin client of the ctxd context daemon. It starts
-- `ctxd serve`, sends the editor's state with each request, and shows
-- what the daemon answers; gathering, scoring and fitting all happen in
-- the daemon. Every call is asynchronous: the UI never waits, and a
-- response that a newer request has superseded is dropped.
local rpc = require('ctxd.rpc')

local M = {}

local TASKS = { auto = true, implement = true, debug = true, refactor = true, test = true, analyze = true }

local defaults = {
  -- cmd is the ctxd binary: a name looked up on PATH or a path; or a list:
  -- a program and its arguments ({ 'env', 'X=1', 'ctxd' }, or
  -- { 'ctxd', 'serve', '--stdio' } as LSP configs spell it), before which
  -- ctxd's own serve arguments are appended.
  cmd = 'ctxd',
  -- args are extra `ctxd serve` flags.
  args = {},
  -- root is the workspace: a path, a function returning one, or nil for
  -- the git top-level above the current directory.
  root = nil,
  model = nil,
  -- token_budget is the total budget of a prompt (a number) or a table
  -- {total, system, context, user_request, response}.
  token_budget = nil,
  format = 'markdown',
  exclude = {},
  -- register is where :CtxPrompt! yanks the prompt.
  register = '"',
  -- offer_resume: on opening a workspace with a running session, offer
  -- to resume it.
  offer_resume = true,
  -- transport: 'auto' (vim.lsp.rpc when present, else jobstart), 'lsp'
  -- or 'job'.
  transport = 'auto',
  -- log_file receives the daemon's logs (they never hold source text).
  log_file = nil,
  -- env adds environment variables for the daemon.
  env = nil,
}

M.config = vim.deepcopy(defaults)

-- state is per Neovim instance; tests read it through M._state.
local state = {
  conn = nil,
  root = nil,
  ready = false,
  starting = false,
  waiting = {}, -- functions to run once initialize answered
  gen = {}, -- kind -> generation of the newest request
  inflight = {}, -- kind -> request id
  dropped = 0, -- stale responses dropped
  envelope = nil,
  prompt_buf = nil,
  session_id = nil,
  init_result = nil,
  last_error = nil,
}
M._state = state

local function notify(msg, level)
  vim.notify('ctxd: ' .. msg, level or vim.log.levels.INFO)
end

local function err_text(err)
  if type(err) == 'table' then
    local msg = err.message or vim.inspect(err)
    if err.code then
      return string.format('%s (%s)', msg, tostring(err.code))
    end
    return msg
  end
  return tostring(err)
end

--- A callback for M.request that calls cb(result) on success and reports
--- an error, other than a cancellation, as "<what> failed: ...".
local function on_result(what, cb)
  return function(err, result)
    if err then
      if err.code ~= rpc.CANCELLED then
        notify(what .. ' failed: ' .. err_text(err), vim.log.levels.ERROR)
      end
      return
    end
    cb(result)
  end
end

--- The workspace root: the configured one, else the git top-level above
--- the current directory (found by looking for .git, no subprocess), else
--- the current directory.
function M.root()
  local r = M.config.root
  if type(r) == 'function' then
    r = r()
  end
  if type(r) == 'string' and r ~= '' then
    return vim.fn.fnamemodify(r, ':p'):gsub('/$', '')
  end
  local cwd = vim.fn.getcwd()
  local dir = vim.fn.finddir('.git', cwd .. ';')
  if dir ~= '' then
    return vim.fn.fnamemodify(dir, ':p:h:h')
  end
  local file = vim.fn.findfile('.git', cwd .. ';')
  if file ~= '' then
    return vim.fn.fnamemodify(file, ':p:h')
  end
  return cwd
end

--- The message for a ctxd binary that cannot be found.
function M.missing_binary_message(cmd)
  return string.format(
    "binary '%s' not found or not executable. Install ctxd (go install ./cmd/ctxd in a ctxd checkout) "
      .. "or point the plugin at it: require('ctxd').setup{ cmd = '/path/to/ctxd' }",
    cmd
  )
end

local function serve_args()
  local args = { 'serve', '--stdio' }
  local log_file = M.config.log_file
  if log_file == nil then
    local dir = vim.fn.stdpath('cache')
    vim.fn.mkdir(dir, 'p')
    log_file = dir .. '/ctxd.log'
  end
  if log_file ~= false then
    vim.list_extend(args, { '--log-file', log_file })
  end
  vim.list_extend(args, M.config.args or {})
  return args
end

local function budget_param()
  local b = M.config.token_budget
  if type(b) == 'number' and b > 0 then
    return { total = math.floor(b) }
  elseif type(b) == 'table' then
    return b
  end
  return nil
end

local function init_params(root)
  local p = {
    root = root,
    clientInfo = { name = 'ctxd.nvim', version = '0.1.0' },
    format = M.config.format,
  }
  if M.config.model and M.config.model ~= '' then
    p.model = M.config.model
  end
  p.token_budget = budget_param()
  if M.config.exclude and #M.config.exclude > 0 then
    p.exclude = M.config.exclude
  end
  return p
end

-- flush runs (or fails) what waited for initialize.
local function flush(err)
  local waiting = state.waiting
  state.waiting = {}
  for _, fn in ipairs(waiting) do
    fn(err)
  end
end

--- Run fn(err) once the daemon is initialized, starting it if needed.
--- err is a message when the daemon cannot be started.
function M.with_daemon(fn)
  local root = M.root()
  if state.conn and not state.conn.closed and state.root ~= root then
    -- The workspace changed: a new daemon serves the new root.
    M.stop()
  end
  if state.ready and state.conn and not state.conn.closed then
    fn(nil)
    return
  end
  table.insert(state.waiting, fn)
  if state.starting then
    return
  end
  local cmd, lead = require('ctxd.cmd').split(M.config.cmd)
  if not cmd then
    state.last_error = lead
    flush(state.last_error)
    return
  end
  if vim.fn.executable(cmd) ~= 1 then
    state.last_error = M.missing_binary_message(cmd)
    flush(state.last_error)
    return
  end
  state.starting = true
  state.root = root
  local args = serve_args()
  if vim.tbl_contains(lead, 'serve') then
    -- { 'ctxd', 'serve', '--stdio' }, as LSP configs spell it: the list
    -- names the subcommand already.
    table.remove(args, 1)
  end
  local conn, err = rpc.start(cmd, vim.list_extend(lead, args), {
    cwd = root,
    env = M.config.env,
    transport = M.config.transport,
    on_exit = function(code, signal, requested)
      if state.conn and state.conn.closed then
        state.conn, state.ready, state.starting = nil, false, false
      end
      if not requested then
        state.last_error = string.format('ctxd exited (code %s, signal %s)', tostring(code), tostring(signal))
        notify(state.last_error .. '; it starts again with the next command', vim.log.levels.WARN)
        flush(state.last_error)
      end
    end,
  })
  if not conn then
    state.starting = false
    state.last_error = err
    flush(err)
    return
  end
  state.conn = conn
  conn:request('initialize', init_params(root), function(ierr, result)
    state.starting = false
    if ierr then
      state.last_error = 'initialize failed: ' .. err_text(ierr)
      if state.conn == conn then
        state.conn = nil
        conn:stop()
      end
      flush(state.last_error)
      return
    end
    state.ready = true
    state.init_result = result
    conn:notify('initialized', vim.empty_dict())
    flush(nil)
  end)
end

--- Send a request of a kind ('prompt', 'context', 'resume', ...). A newer
--- request of the same kind supersedes it: the older one is cancelled in
--- the daemon and its answer, should it still come, is dropped.
--- cb(err, result) runs on the main loop and never for a dropped answer.
function M.request(kind, method, params, cb)
  state.gen[kind] = (state.gen[kind] or 0) + 1
  local my = state.gen[kind]
  local conn = state.conn
  if state.inflight[kind] and conn then
    conn:cancel(state.inflight[kind])
  end
  state.inflight[kind] = nil
  M.with_daemon(function(err)
    if my ~= state.gen[kind] then
      state.dropped = state.dropped + 1
      return
    end
    if err then
      cb({ message = err }, nil)
      return
    end
    local c = state.conn
    local id
    id = c:request(method, params, function(rerr, result)
      if state.inflight[kind] == id then
        state.inflight[kind] = nil
      end
      if my ~= state.gen[kind] then
        state.dropped = state.dropped + 1
        return
      end
      cb(rerr, result)
    end)
    state.inflight[kind] = id
  end)
  return my
end

--- Cancel every request in flight.
function M.cancel()
  local n = 0
  for kind, id in pairs(state.inflight) do
    state.gen[kind] = (state.gen[kind] or 0) + 1
    if state.conn then
      state.conn:cancel(id)
    end
    state.inflight[kind] = nil
    n = n + 1
  end
  return n
end

--- Stop the daemon.
function M.stop()
  if state.conn then
    state.conn:stop()
  end
  state.conn, state.ready, state.starting = nil, false, false
  state.inflight = {}
end

local function rel_path(root, file)
  if file == '' then
    return nil
  end
  local abs = vim.fn.fnamemodify(file, ':p')
  local prefix = root .. '/'
  if abs:sub(1, #prefix) == prefix then
    return abs:sub(#prefix + 1)
  end
  return nil
end

local function buffer_text(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, '\n')
  if vim.bo[buf].eol then
    text = text .. '\n'
  end
  return text
end

--- The open files of a request: the current buffer with cursor and
--- selection (range given to the command), and every modified buffer
--- inside the workspace with its unsaved text.
function M.open_files(root, range)
  local files, seen = {}, {}
  local cur = vim.api.nvim_get_current_buf()
  local rel = rel_path(root, vim.api.nvim_buf_get_name(cur))
  if rel and vim.bo[cur].buftype == '' then
    local of = { path = rel, line = vim.api.nvim_win_get_cursor(0)[1] }
    if range and range[1] and range[2] and range[2] >= range[1] then
      of.selection = { start = range[1], ['end'] = range[2] }
    end
    if vim.bo[cur].modified then
      of.text = buffer_text(cur)
    end
    files[#files + 1] = of
    seen[rel] = true
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified and vim.bo[buf].buftype == '' then
      local r = rel_path(root, vim.api.nvim_buf_get_name(buf))
      if r and not seen[r] then
        seen[r] = true
        files[#files + 1] = { path = r, text = buffer_text(buf) }
      end
    end
  end
  return files, rel
end

--- The current buffer's errors as compiler-style lines (path:line: msg).
function M.error_text(rel)
  if not rel or not vim.diagnostic then
    return ''
  end
  local out = {}
  local diags = vim.diagnostic.get(0, { severity = vim.diagnostic.severity.ERROR })
  table.sort(diags, function(a, b)
    return a.lnum < b.lnum
  end)
  for _, d in ipairs(diags) do
    local msg = (d.message or ''):gsub('\n.*', '')
    local src = d.source and (d.source .. ': ') or ''
    out[#out + 1] = string.format('%s:%d: %s%s', rel, d.lnum + 1, src, msg)
  end
  return table.concat(out, '\n')
end

local function session_id()
  if not state.session_id then
    -- hrtime's low bits, rather than math.random, whose seed is global.
    state.session_id = string.format('nvim-%s-%06x', os.date('!%Y%m%dT%H%M%S'), vim.loop.hrtime() % 0x1000000)
  end
  return state.session_id
end

--- Parse :CtxPrompt's arguments: an optional task, then the request.
function M.parse_prompt_args(args)
  local task, rest = args:match('^%s*(%S+)%s*(.-)%s*$')
  if task and TASKS[task] and rest ~= '' then
    return task, rest
  end
  return 'auto', vim.trim(args)
end

--- The ctx/buildPrompt parameters for a request from the current editor state.
function M.prompt_params(task, request, range)
  local files, rel = M.open_files(M.root(), range)
  local text = request
  if task == 'debug' then
    local errs = M.error_text(rel)
    if errs ~= '' then
      text = text .. '\n\nCurrent errors:\n' .. errs
    end
  end
  local p = {
    user_request = text,
    task_type = task,
    format = M.config.format,
    session_id = session_id(),
  }
  if #files > 0 then
    p.open_files = files
  end
  if M.config.model and M.config.model ~= '' then
    p.model = M.config.model
  end
  p.token_budget = budget_param()
  return p
end

--- Show a prompt in the scratch markdown buffer (reused across calls).
function M.show_prompt(env, yank)
  local prompt = env.prompt or ''
  local buf = state.prompt_buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'ctxd://prompt')
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    state.prompt_buf = buf
  end
  vim.bo[buf].filetype = env.format == 'xml' and 'xml' or 'markdown'
  vim.bo[buf].modifiable = true
  local lines = vim.split(prompt, '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    -- The final newline ends the last line; it is not a line of its own.
    lines[#lines] = nil
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modified = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  local c = env.context or {}
  local msg = string.format(
    'prompt: %s tokens; context %s/%s (%d%%), %d chunks, %d skipped',
    tostring(env.prompt_tokens),
    tostring(c.tokens_used),
    tostring(c.budget),
    math.floor((c.utilization or 0) * 100 + 0.5),
    #(c.chunks or {}),
    #(c.skipped or {})
  )
  if yank then
    vim.fn.setreg(M.config.register, prompt)
    msg = msg .. '; yanked to register ' .. M.config.register
  end
  if env.warnings and #env.warnings > 0 then
    msg = msg .. '; warnings: ' .. table.concat(env.warnings, '; ')
  end
  notify(msg)
end

--- :CtxPrompt[!] [task] {request}
function M.prompt(args, opts)
  opts = opts or {}
  local task, request = M.parse_prompt_args(args or '')
  if request == '' then
    notify('usage: :CtxPrompt[!] [auto|implement|debug|refactor|test|analyze] {request}', vim.log.levels.ERROR)
    return
  end
  local params = M.prompt_params(task, request, opts.range)
  return M.request('prompt', 'ctx/buildPrompt', params, on_result('building the prompt', function(env)
    state.envelope = env
    M.show_prompt(env, opts.yank)
  end))
end

local function qf_items(env)
  local root = env.root or state.root or M.root()
  local items = {}
  local c = env.context or {}
  for _, ch in ipairs(c.chunks or {}) do
    local level = ch.truncated and ('truncated: ' .. (ch.truncation or '?')) or 'full'
    local text = string.format('%s · score %s · %d tok · %s', ch.priority, tostring(ch.score), ch.tokens or 0, level)
    local item = { text = text, valid = 1 }
    if ch.chunk_type == 'file' then
      item.filename = root .. '/' .. ch.source
      local facts = ch.facts or {}
      local lnum = 1
      if type(facts.cursor) == 'number' and facts.cursor > 0 then
        lnum = facts.cursor
      elseif type(facts.error_lines) == 'table' and type(facts.error_lines[1]) == 'number' then
        lnum = facts.error_lines[1]
      elseif type(ch.elided) == 'table' and ch.elided[1] and ch.elided[1].start == 1 then
        lnum = ch.elided[1]['end'] + 1
      end
      item.lnum = lnum
    else
      item.text = ch.source .. ': ' .. text
      item.valid = 0
    end
    items[#items + 1] = item
  end
  for _, s in ipairs(c.skipped or {}) do
    local item = { text = string.format('skipped: %s (%d tok, score %s)', s.reason, s.tokens or 0, tostring(s.score)), type = 'W' }
    if not s.source:match('^git:') and s.source ~= 'structure' and s.source ~= 'deps' then
      item.filename = root .. '/' .. s.source
      item.lnum = 1
    else
      item.text = s.source .. ': ' .. item.text
      item.valid = 0
    end
    items[#items + 1] = item
  end
  return items
end

--- Fill the quickfix list with an envelope's chunks and skipped chunks.
function M.fill_quickfix(env, open)
  local items = qf_items(env)
  local c = env.context or {}
  vim.fn.setqflist({}, ' ', {
    title = string.format('ctxd: %s · %s/%s tokens', env.task_type or '?', tostring(c.tokens_used), tostring(c.budget)),
    items = items,
  })
  if open then
    vim.cmd('copen')
  end
  return #items
end

--- :CtxContext [request]: the last envelope's chunks in quickfix, or a
--- fresh ctx/gather for the request given.
function M.context(args)
  local request = vim.trim(args or '')
  if request == '' then
    if not state.envelope then
      notify('no context yet: run :CtxPrompt first, or :CtxContext {request}', vim.log.levels.WARN)
      return
    end
    M.fill_quickfix(state.envelope, true)
    return
  end
  local params = M.prompt_params('auto', request, nil)
  params.format = nil
  params.session_id = nil
  return M.request('context', 'ctx/gather', params, on_result('gathering', function(env)
    state.envelope = env
    M.fill_quickfix(env, true)
  end))
end

local function session_line(s)
  local req = (s.user_request or ''):gsub('%s+', ' ')
  if #req > 60 then
    req = req:sub(1, 59) .. '…'
  end
  return string.format('%s  %-9s %-9s %s  "%s"', s.session_id, s.state or '?', s.task_type or '?', s.updated or '', req)
end

--- Resume a session (the newest running one when id is nil): the rebuilt
--- prompt goes to the prompt buffer.
function M.resume(id)
  local params = vim.empty_dict()
  if id and id ~= '' then
    params = { session_id = id }
  end
  return M.request('resume', 'ctx/sessions/resume', params, on_result('resume', function(res)
    if not res.resumed then
      notify('nothing to resume: ' .. (res.reason or 'no running session'))
      return
    end
    state.session_id = res.session_id
    notify(string.format(
      'resumed session %s: %d unchanged, %d changed, %d missing%s',
      res.session_id,
      res.unchanged or 0,
      res.changed or 0,
      res.missing or 0,
      (res.warnings and #res.warnings > 0) and ('; ' .. table.concat(res.warnings, '; ')) or ''
    ))
    if res.envelope then
      state.envelope = res.envelope
      M.show_prompt(res.envelope, false)
    end
  end))
end

--- :CtxSessions: pick a session of this workspace to resume.
function M.sessions()
  return M.request('sessions', 'ctx/sessions/list', vim.empty_dict(), function(err, listing)
    if err then
      notify('listing sessions failed: ' .. err_text(err), vim.log.levels.ERROR)
      return
    end
    local list = listing.sessions or {}
    if #list == 0 then
      notify('this workspace has no sessions yet')
      return
    end
    vim.ui.select(list, { prompt = 'ctxd: resume which session?', format_item = session_line }, function(choice)
      if choice then
        M.resume(choice.session_id)
      end
    end)
  end)
end

--- Offer to resume the newest running session of this workspace, if any.
function M.offer_resume()
  local root = M.root()
  return M.request('offer', 'ctx/sessions/list', { state = 'running' }, function(err, listing)
    if err then
      -- A missing binary was reported by the command that needed it; on
      -- startup say it once, quietly.
      notify('session check failed: ' .. err_text(err), vim.log.levels.WARN)
      return
    end
    local cand
    for _, s in ipairs(listing.sessions or {}) do
      if s.state == 'running' and (s.root == nil or s.root == root) then
        cand = s
        break
      end
    end
    if not cand then
      return
    end
    local req = (cand.user_request or ''):gsub('%s+', ' ')
    vim.ui.select({ 'Resume', 'Not now' }, {
      prompt = string.format('ctxd: session %s (%s: "%s") is still running here. Resume it?', cand.session_id, cand.task_type or '?', req),
    }, function(choice)
      if choice == 'Resume' then
        M.resume(cand.session_id)
      end
    end)
  end)
end

local function define_commands()
  vim.api.nvim_create_user_command('CtxPrompt', function(o)
    local range
    if o.range and o.range > 0 then
      range = { o.line1, o.line2 }
    end
    M.prompt(o.args, { yank = o.bang, range = range })
  end, { nargs = '+', bang = true, range = true, desc = 'ctxd: build a prompt for a task' })
  vim.api.nvim_create_user_command('CtxContext', function(o)
    M.context(o.args)
  end, { nargs = '*', desc = 'ctxd: the context chunks in the quickfix list' })
  vim.api.nvim_create_user_command('CtxSessions', function()
    M.sessions()
  end, { nargs = 0, desc = 'ctxd: list sessions and pick one to resume' })
  vim.api.nvim_create_user_command('CtxResume', function(o)
    M.resume(o.args)
  end, { nargs = '?', desc = 'ctxd: resume a session (the newest running one by default)' })
  vim.api.nvim_create_user_command('CtxCancel', function()
    notify(string.format('cancelled %d request(s)', M.cancel()))
  end, { nargs = 0, desc = 'ctxd: cancel requests in flight' })
end

--- Configure the plugin and define its commands.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  define_commands()
  local group = vim.api.nvim_create_augroup('ctxd', { clear = true })
  if M.config.offer_resume then
    if vim.v.vim_did_enter == 1 then
      vim.schedule(M.offer_resume)
    else
      vim.api.nvim_create_autocmd('VimEnter', { group = group, once = true, callback = function()
        M.offer_resume()
      end })
    end
    vim.api.nvim_create_autocmd('DirChanged', { group = group, callback = function()
      if M.root() ~= state.root then
        M.offer_resume()
      end
    end })
  end
  vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = M.stop })
end

return M
