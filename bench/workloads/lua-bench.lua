-- Keel's Lua workload for the real-program benchmarks: deterministic, a mix of
-- the interpreter's hot paths (calls, arithmetic, strings, tables, closures,
-- sort with a comparator), ~20-40 M instructions. No time, no randomness.
local N = tonumber(arg and arg[1]) or 1

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7)) end
  local s = table.concat(parts, ",")
  local count = 0
  for w in s:gmatch("%d+") do count = count + #w end
  return count + #s:upper()
end

local function tables(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % 1000 end
  table.sort(t, function(a, b) return a > b end)
  local m = {}
  for i = 1, n do local k = "k" .. (t[i] % 97); m[k] = (m[k] or 0) + 1 end
  local sum = 0
  for _, v in pairs(m) do sum = sum + v end
  return sum + t[1]
end

local function closures(n)
  local acc = 0
  local function make(k) return function(x) return x * k + 1 end end
  for i = 1, n do acc = (acc + make(i % 13)(i)) % 1000003 end
  return acc
end

local total = 0
for _ = 1, N do
  total = total + fib(20) + strings(3000) + tables(6000) + closures(40000)
end
print(total)
