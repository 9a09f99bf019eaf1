-- busted tests of setup{ cmd = ... } parsing (run from editors/nvim:
-- busted --lpath='lua/?.lua' spec).
local cmd = require('ctxd.cmd')

describe('cmd', function()
  it('takes a string', function()
    local bin, args = cmd.split('/usr/local/bin/ctxd')
    assert.same('/usr/local/bin/ctxd', bin)
    assert.same({}, args)
  end)

  it('takes a list: the binary, then leading arguments', function()
    local list = { 'ctxd', '--log-level', 'debug' }
    local bin, args = cmd.split(list)
    assert.same('ctxd', bin)
    assert.same({ '--log-level', 'debug' }, args)
    assert.same({ 'ctxd', '--log-level', 'debug' }, list)
  end)

  it('refuses what is neither', function()
    for _, bad in ipairs({ '', {}, { 1 }, { 'ctxd', 2 }, 42 }) do
      local bin, msg = cmd.split(bad)
      assert.is_nil(bin)
      assert.truthy(msg:find('setup{ cmd', 1, true))
    end
  end)
end)
