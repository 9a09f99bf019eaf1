-- :checkhealth ctxd. Neovim 0.7-0.9 report through require('health')'s
-- report_* functions, 0.10+ through vim.health.start/ok/...: feature-detect.
local M = {}

local function reporter()
  local h = vim.health
  if type(h) == 'table' and type(h.start) == 'function' then
    return { start = h.start, ok = h.ok, info = h.info, warn = h.warn, error = h.error }
  end
  h = require('health')
  return { start = h.report_start, ok = h.report_ok, info = h.report_info, warn = h.report_warn, error = h.report_error }
end

function M.check()
  local r = reporter()
  local ctxd = require('ctxd')
  local rpc = require('ctxd.rpc')
  local cfg = ctxd.config

  r.start('ctxd: Neovim')
  local v = vim.version()
  r.info(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  local start = rpc.lsp_start()
  if cfg.transport == 'job' then
    r.ok('transport: jobstart (configured)')
  elseif start then
    local _, how = pcall(function()
      local info = debug.getinfo(require('vim.lsp.rpc').start, 'u')
      return info and info.nparams
    end)
    r.ok(string.format('transport: vim.lsp.rpc.start (%s parameters)', tostring(how)))
  else
    r.warn('vim.lsp.rpc.start is missing: falling back to jobstart')
  end

  r.start('ctxd: daemon')
  local cmd, why = require('ctxd.cmd').split(cfg.cmd)
  if not cmd then
    r.error(why)
  elseif vim.fn.executable(cmd) ~= 1 then
    r.error(ctxd.missing_binary_message(cmd))
  else
    r.ok(string.format('binary: %s', vim.fn.exepath(cmd)))
    -- :checkhealth may block; the plugin's own paths never do.
    local out = vim.fn.system({ cmd, 'version' })
    if vim.v.shell_error == 0 then
      r.ok('version: ' .. vim.trim(out))
    else
      r.error('`' .. cmd .. ' version` failed: ' .. vim.trim(out))
    end
  end
  local st = ctxd._state
  r.info('workspace root: ' .. ctxd.root())
  if st.ready and st.conn and not st.conn.closed then
    r.ok(string.format('daemon running (pid %s, %s)', tostring(st.conn.pid), tostring(st.conn.transport)))
  else
    r.info('daemon not running (it starts with the first command)')
  end
  if st.last_error then
    r.warn('last error: ' .. st.last_error)
  end
end

return M
