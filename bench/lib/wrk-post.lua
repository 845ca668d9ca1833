-- wrk script of bench/inserts.sh for the inserts:
--   wrk ... -s lib/wrk-post.lua URL -- zayavka APIKEY CODE [varied] [from=N]
--   wrk ... -s lib/wrk-post.lua URL -- pocketbase - CODE
-- Every POST is a new lead with a phone number of its own, +380 CODE and 7 digits (the thread's
-- number and a counter), so that no insert is a repeat that a server could store without
-- notifying (zayavka notifies a phone once a day): each run against the same
-- database passes a CODE of its own (a Ukrainian mobile operator code such as 67), or numbers
-- from another N (each thread's counter starts there).
-- Every name is "Олена", or with `varied` one of 24 first names and 27,000 surnames (three of 30
-- syllables): the words of names soon known, nearly every pair of them new (ADR 0077).

local threads = {}
local counter = 0
local code, varied  -- thread_id: a global, set by setup() through thread:set
local first_names = { "Олена", "Петро", "Ірина", "Тарас", "Оксана", "Андрій", "Наталія", "Олександр",
  "Марія", "Дмитро", "Юлія", "Сергій", "Катерина", "Богдан", "Світлана", "Василь", "Галина", "Микола",
  "Тетяна", "Ярослав", "Людмила", "Іван", "Анастасія", "Роман" }
local syllables = { "ко", "ва", "лен", "шев", "чен", "бон", "да", "ре", "тка", "кра", "мель", "ник",
  "бой", "са", "ру", "де", "мо", "роз", "ли", "сен", "мар", "пав", "гон", "ча", "кузь", "кли", "пе",
  "гав", "рил", "лит" }

function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  if args[1] == "zayavka" then
    wrk.headers["apikey"] = args[2]
  elseif args[1] ~= "pocketbase" then
    error("unknown server " .. tostring(args[1]))
  end
  code = args[3] or "67"
  for i = 4, #args do
    if args[i] == "varied" then varied = true end
    local from = args[i]:match("^from=(%d+)$")
    if from then counter = tonumber(from) end
  end
end

-- The n-th varied name: a first name, and a surname of three syllables and "енко" (in lower case:
-- names are searched folded). wrk's Lua is 5.1: no integer division operator.
local function name_of(n)
  local surname = math.floor(n / 24)
  return first_names[n % 24 + 1] .. " " .. syllables[surname % 30 + 1]
    .. syllables[math.floor(surname / 30) % 30 + 1] .. syllables[math.floor(surname / 900) % 30 + 1] .. "енко"
end

function request()
  counter = counter + 1
  local phone = string.format("+380%s%07d", code, ((thread_id or 0) * 1000000 + counter) % 10000000)
  local name = varied and name_of((counter * 7919 + (thread_id or 0)) % 648000) or "Олена"
  return wrk.format(nil, nil, nil,
    '{"name":"' .. name .. '","phone":"' .. phone .. '","confirmation":"Так","comment":null}')
end

-- done() comes from wrk-report.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-report.lua")
