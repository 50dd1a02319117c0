-- Keel's second Lua workload (the "test" input of bench/corpus.py; lua-bench.lua is
-- the "train" input): another mix of the interpreter's paths: metatables and
-- methods, coroutines, string.format/gsub/find, integer and float arithmetic,
-- varargs, table.insert/remove/concat, pcall/error. No time, no randomness.
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec:len2() return self.x * self.x + self.y * self.y end

local function vectors(n)
  local acc = Vec.new(0, 0)
  for i = 1, n do acc = acc + Vec.new(i % 17, -(i % 5)) end
  return acc:len2() % 1000003
end

local function gen(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i * 3 % 11) end end)
end

local function coros(n)
  local s = 0
  for v in gen(n) do s = s + v end
  return s
end

local function text(n)
  local out = {}
  for i = 1, n do
    local line = string.format("%05d|%-8s|%6.2f", i, ("ab"):rep(i % 4), i / 7)
    line = line:gsub("a", "A"):gsub("%d%d", function(d) return d:reverse() end)
    local p = line:find("|", 1, true)
    out[#out + 1] = line:sub(p + 1)
  end
  return #table.concat(out, "\n")
end

local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + select(i, ...) end
  return s
end

local function queue(n)
  local q, s = {}, 0
  for i = 1, n do
    table.insert(q, i)
    if #q > 50 then s = s + table.remove(q, 1) end
  end
  return s + sum(1, 2, 3, 4, 5)
end

local function errors(n)
  local c = 0
  for i = 1, n do
    local ok, e = pcall(function() if i % 3 == 0 then error("bad " .. i) end return i end)
    if not ok then c = c + #e end
  end
  return c
end

local total = 0
for _ = 1, 1 do
  total = total + vectors(6000) + coros(4000) + text(500) + queue(4000) + errors(2000)
end
print(total)
