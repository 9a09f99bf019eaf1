-- LSP base-protocol framing (Content-Length headers) for the jobstart
-- transport. Pure Lua (5.1 through 5.4, LuaJIT): no vim API, so busted
-- tests it outside Neovim.
local M = {}

--- Encode one message body as a frame.
---@param body string JSON text
---@return string
function M.encode(body)
  return 'Content-Length: ' .. #body .. '\r\n\r\n' .. body
end

--- A Decoder turns a byte stream into message bodies. Feed it chunks of
--- any size; it returns the complete bodies so far. A malformed header is
--- reported and skipped: decoding resumes at the next "Content-Length:".
---@class ctxd.Decoder
---@field buf string
local Decoder = {}
Decoder.__index = Decoder

--- Create a decoder.
---@return ctxd.Decoder
function M.decoder()
  return setmetatable({ buf = '' }, Decoder)
end

-- parse_headers returns the Content-Length of a header block, or nil and
-- why not.
local function parse_headers(block)
  local length
  for line in (block .. '\r\n'):gmatch('(.-)\r\n') do
    local name, value = line:match('^([^:]+):%s*(.-)%s*$')
    if not name then
      return nil, string.format('malformed header line %q', line)
    end
    if name:lower() == 'content-length' then
      if not value:match('^%d+$') then
        return nil, string.format('bad Content-Length %q', value)
      end
      length = tonumber(value)
    end
  end
  if not length then
    return nil, 'no Content-Length header'
  end
  return length
end

--- Feed a chunk; returns the bodies it completes and the errors met.
---@param chunk string
---@return string[] bodies, string[] errors
function Decoder:feed(chunk)
  self.buf = self.buf .. chunk
  local bodies, errors = {}, {}
  while true do
    local hend = self.buf:find('\r\n\r\n', 1, true)
    if not hend then
      -- Headers are short; a long run without a header end is garbage.
      if #self.buf > 4096 then
        local next_start = self.buf:find('Content-Length:', 2, true)
        errors[#errors + 1] = 'no header end in 4096 bytes'
        self.buf = next_start and self.buf:sub(next_start) or ''
      end
      break
    end
    local length, err = parse_headers(self.buf:sub(1, hend - 1))
    if not length then
      errors[#errors + 1] = err
      local next_start = self.buf:find('Content-Length:', 2, true)
      self.buf = next_start and self.buf:sub(next_start) or ''
    else
      local bstart = hend + 4
      if #self.buf - bstart + 1 < length then
        break
      end
      bodies[#bodies + 1] = self.buf:sub(bstart, bstart + length - 1)
      self.buf = self.buf:sub(bstart + length)
    end
  end
  return bodies, errors
end

return M
