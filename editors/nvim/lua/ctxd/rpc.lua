-- The connection to `ctxd serve`: vim.lsp.rpc.start when Neovim has it
-- (feature-detecting its signature, which changed in 0.10), else jobstart
-- with our own Content-Length framing. Everything is asynchronous:
-- callbacks run on the main loop, and nothing here waits.
local framing = require('ctxd.framing')

local M = {}

local CANCELLED = -32800

-- lsp_start returns a function (cmd, args, dispatchers, extra) that calls
-- vim.lsp.rpc.start with the signature this Neovim has, or nil when it
-- has none. 0.7-0.9: start(cmd, cmd_args, dispatchers, extra_spawn_params);
-- 0.10+: start(cmd_list, dispatchers, extra_spawn_params).
function M.lsp_start()
  local ok, rpc = pcall(require, 'vim.lsp.rpc')
  if not ok or type(rpc) ~= 'table' or type(rpc.start) ~= 'function' then
    return nil
  end
  local info = debug.getinfo(rpc.start, 'u')
  local nparams = info and info.nparams
  if type(nparams) ~= 'number' or nparams == 0 then
    -- A vararg wrapper or a Lua without nparams: go by version.
    nparams = vim.fn.has('nvim-0.10') == 1 and 3 or 4
  end
  if nparams >= 4 then
    return function(cmd, args, dispatchers, extra)
      return rpc.start(cmd, args, dispatchers, extra), 'lsp (start(cmd, args, ...))'
    end
  end
  return function(cmd, args, dispatchers, extra)
    local list = { cmd }
    vim.list_extend(list, args)
    return rpc.start(list, dispatchers, extra), 'lsp (start({cmd, ...}, ...))'
  end
end

-- A Conn is one running daemon: request/notify/cancel/stop, plus the
-- pending requests it answers itself when the process dies.
local Conn = {}
Conn.__index = Conn

--- Send a request; cb(err, result) runs on the main loop exactly once:
--- with the result, the daemon's error, a cancellation (code -32800), or
--- an error when the daemon exits first. Returns the request's id.
function Conn:request(method, params, cb)
  if self.closed then
    vim.schedule(function()
      cb({ code = -32099, message = 'ctxd is not running' }, nil)
    end)
    return nil
  end
  local id = self:_send_request(method, params)
  if not id then
    vim.schedule(function()
      cb({ code = -32099, message = 'could not send ' .. method .. ' to ctxd' }, nil)
    end)
    return nil
  end
  self.pending[id] = cb
  return id
end

--- Send a notification, unless the daemon is gone.
function Conn:notify(method, params)
  if not self.closed then
    self:_send_notify(method, params)
  end
end

--- Answer a pending request (once).
function Conn:_answer(id, err, result)
  local cb = self.pending[id]
  if cb then
    self.pending[id] = nil
    cb(err, result)
  end
end

--- Cancel a request: $/cancelRequest goes to the daemon and the callback
--- gets a -32800 error now (vim.lsp.rpc swallows the daemon's -32800
--- answer, so the client answers it itself).
function Conn:cancel(id)
  if id == nil or not self.pending[id] then
    return
  end
  self:notify('$/cancelRequest', { id = id })
  self:_answer(id, { code = CANCELLED, message = 'request cancelled' }, nil)
end

--- Tell every pending request that the daemon is gone.
function Conn:_fail_all(message)
  local ids = vim.tbl_keys(self.pending)
  table.sort(ids)
  for _, id in ipairs(ids) do
    self:_answer(id, { code = -32097, message = message }, nil)
  end
end

--- Shut the daemon down politely: shutdown, then exit.
function Conn:stop()
  if self.closed then
    return
  end
  self.stopping = true
  self:request('shutdown', nil, function()
    self:notify('exit', nil)
  end)
end

-- The vim.lsp.rpc transport.
local function start_lsp(start, cmd, args, opts, on_exit)
  local conn = setmetatable({ pending = {}, closed = false }, Conn)
  local dispatchers = {
    notification = function() end,
    server_request = function()
      return nil, { code = -32601, message = 'ctxd client handles no requests' }
    end,
    on_exit = function(code, signal)
      -- Not scheduled by 0.7's rpc.start: we are in a luv callback.
      vim.schedule(function()
        conn.closed = true
        conn:_fail_all(string.format('ctxd exited (code %s, signal %s)', tostring(code), tostring(signal)))
        on_exit(code, signal, conn.stopping)
      end)
    end,
    on_error = function() end,
  }
  local ok, client, how = pcall(start, cmd, args, dispatchers, { cwd = opts.cwd, env = opts.env })
  if not ok or not client then
    return nil, 'could not start ' .. cmd .. (ok and '' or (': ' .. tostring(client)))
  end
  conn.transport = how
  conn.pid = client.pid
  function conn:_send_request(method, params)
    local sent, id
    sent, id = client.request(method, params, function(err, result)
      self:_answer(id, err, result)
    end)
    if not sent then
      return nil
    end
    return id
  end
  conn._send_notify = function(_, method, params)
    client.notify(method, params)
  end
  conn.kill = function()
    client.terminate()
  end
  return conn
end

-- The jobstart transport, with our own framing.
local function start_job(cmd, args, opts, on_exit)
  local conn = setmetatable({ pending = {}, closed = false, next_id = 0, transport = 'job' }, Conn)
  local decoder = framing.decoder()
  local argv = { cmd }
  vim.list_extend(argv, args)
  local function on_body(body)
    local ok, msg = pcall(vim.json.decode, body, { luanil = { object = true, array = true } })
    if not ok or type(msg) ~= 'table' then
      return
    end
    if msg.id ~= nil and msg.method == nil then
      -- A -32800 answer to a request we already answered is ignored.
      conn:_answer(tonumber(msg.id), msg.error, msg.result)
    end
  end
  local job_opts = {
    cwd = opts.cwd,
    stdout_buffered = false,
    on_stdout = function(_, data)
      local bodies = decoder:feed(table.concat(data, '\n'))
      for _, body in ipairs(bodies) do
        on_body(body)
      end
    end,
    on_stderr = function() end,
    on_exit = function(_, code)
      conn.closed = true
      conn:_fail_all(string.format('ctxd exited (code %s)', tostring(code)))
      on_exit(code, 0, conn.stopping)
    end,
  }
  if opts.env and next(opts.env) then
    job_opts.env = opts.env
  end
  local ok, job = pcall(vim.fn.jobstart, argv, job_opts)
  if not ok or type(job) ~= 'number' or job <= 0 then
    return nil, 'could not start ' .. cmd .. (ok and '' or (': ' .. tostring(job)))
  end
  conn.job = job
  conn.pid = vim.fn.jobpid(job)
  local function send(payload)
    local sent = pcall(vim.fn.chansend, job, framing.encode(vim.json.encode(payload)))
    return sent
  end
  function conn:_send_request(method, params)
    self.next_id = self.next_id + 1
    local id = self.next_id
    if not send({ jsonrpc = '2.0', id = id, method = method, params = params }) then
      return nil
    end
    return id
  end
  conn._send_notify = function(_, method, params)
    send({ jsonrpc = '2.0', method = method, params = params })
  end
  conn.kill = function()
    vim.fn.jobstop(job)
  end
  return conn
end

--- Start the daemon. opts: cwd, env (table of extra variables), transport
--- ('auto', 'lsp' or 'job'), on_exit(code, signal, requested). Returns a
--- Conn, or nil and an error message.
function M.start(cmd, args, opts)
  local on_exit = opts.on_exit or function() end
  local transport = opts.transport or 'auto'
  if transport ~= 'job' then
    local start = M.lsp_start()
    if start then
      return start_lsp(start, cmd, args, opts, on_exit)
    end
    if transport == 'lsp' then
      return nil, 'this Neovim has no vim.lsp.rpc.start'
    end
  end
  return start_job(cmd, args, opts, on_exit)
end

M.CANCELLED = CANCELLED

return M
