-- busted tests of the Content-Length framing (run from editors/nvim:
-- busted --lpath='lua/?.lua' spec).
local framing = require('ctxd.framing')

local function feed_all(chunks)
  local d = framing.decoder()
  local bodies, errors = {}, {}
  for _, c in ipairs(chunks) do
    local b, e = d:feed(c)
    for _, x in ipairs(b) do
      bodies[#bodies + 1] = x
    end
    for _, x in ipairs(e) do
      errors[#errors + 1] = x
    end
  end
  return bodies, errors, d
end

describe('framing', function()
  it('round-trips one message', function()
    local bodies, errors = feed_all({ framing.encode('{"id":1}') })
    assert.same({ '{"id":1}' }, bodies)
    assert.same({}, errors)
  end)

  it('counts bytes, not characters', function()
    local body = '{"text":"héllo ✓"}'
    local bodies = feed_all({ framing.encode(body) })
    assert.same({ body }, bodies)
  end)

  local cases = {
    { name = 'two frames in one chunk', chunks = { framing.encode('a') .. framing.encode('bc') }, want = { 'a', 'bc' } },
    { name = 'split in the header', chunks = { 'Content-Len', 'gth: 2\r\n\r', '\nhi' }, want = { 'hi' } },
    { name = 'extra headers', chunks = { 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\nok' }, want = { 'ok' } },
    { name = 'lower-case name', chunks = { 'content-length: 1\r\n\r\nx' }, want = { 'x' } },
    { name = 'empty body', chunks = { 'Content-Length: 0\r\n\r\n', framing.encode('z') }, want = { '', 'z' } },
    { name = 'incomplete body waits', chunks = { 'Content-Length: 5\r\n\r\nabc' }, want = {} },
  }
  for _, tt in ipairs(cases) do
    it(tt.name, function()
      local bodies = feed_all(tt.chunks)
      assert.same(tt.want, bodies)
    end)
  end

  it('skips a malformed header and resynchronizes', function()
    local bodies, errors = feed_all({ 'Content-Length: x\r\n\r\ngarbage' .. framing.encode('good') })
    assert.same({ 'good' }, bodies)
    assert.equals(1, #errors)
    assert.truthy(errors[1]:find('bad Content%-Length'))
  end)

  it('drops garbage without a header end', function()
    local _, errors, d = feed_all({ string.rep('x', 5000) })
    assert.equals(1, #errors)
    assert.equals('', d.buf)
    local bodies = feed_all({ string.rep('x', 5000), framing.encode('after') })
    assert.same({ 'after' }, bodies)
  end)

  it('decodes any split of a stream (property)', function()
    math.randomseed(7)
    for _ = 1, 200 do
      local want, stream = {}, {}
      for i = 1, math.random(1, 6) do
        local body = string.rep(string.char(96 + i), math.random(0, 300))
        want[#want + 1] = body
        stream[#stream + 1] = framing.encode(body)
      end
      local s = table.concat(stream)
      local chunks, pos = {}, 1
      while pos <= #s do
        local n = math.random(1, 40)
        chunks[#chunks + 1] = s:sub(pos, pos + n - 1)
        pos = pos + n
      end
      local bodies, errors = feed_all(chunks)
      assert.same(want, bodies)
      assert.same({}, errors)
    end
  end)

  it('never errors out on random bytes (fuzz)', function()
    math.randomseed(11)
    for _ = 1, 300 do
      local parts = {}
      for _ = 1, math.random(1, 30) do
        local r = math.random(1, 4)
        if r == 1 then
          parts[#parts + 1] = 'Content-Length: ' .. math.random(0, 20) .. '\r\n\r\n'
        elseif r == 2 then
          parts[#parts + 1] = '\r\n'
        else
          local t = {}
          for i = 1, math.random(0, 20) do
            t[i] = string.char(math.random(0, 255))
          end
          parts[#parts + 1] = table.concat(t)
        end
      end
      local d = framing.decoder()
      local ok, err = pcall(d.feed, d, table.concat(parts))
      assert.is_true(ok, err)
      assert.is_true(#d.buf <= #table.concat(parts))
    end
  end)
end)
