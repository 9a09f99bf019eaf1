-- setup{ cmd = ... } is a string (the ctxd binary: a name on PATH or a
-- path) or a list of strings (the binary, then arguments placed before
-- ctxd's own, e.g. { 'ctxd', '--log-level', 'debug' }). Pure Lua, so the
-- busted specs test it outside Neovim.
local M = {}

-- split returns the binary and a fresh list of its leading arguments, or
-- nil and a message saying what is wrong with cmd.
function M.split(cmd)
  if type(cmd) == 'string' and cmd ~= '' then
    return cmd, {}
  end
  if type(cmd) == 'table' and type(cmd[1]) == 'string' and cmd[1] ~= '' then
    local args = {}
    for i = 2, #cmd do
      if type(cmd[i]) ~= 'string' then
        return nil, string.format('setup{ cmd = ... }: item %d of the list is a %s, not a string', i, type(cmd[i]))
      end
      args[#args + 1] = cmd[i]
    end
    return cmd[1], args
  end
  return nil, 'setup{ cmd = ... } must be a string (the ctxd binary) or a list of strings (the binary, then arguments)'
end

return M
