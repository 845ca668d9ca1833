-- wrk script of bench/inserts.sh for the inserts:
--   wrk ... -s lib/wrk-post.lua URL -- zayavka APIKEY CODE
--   wrk ... -s lib/wrk-post.lua URL -- pocketbase - CODE
-- Every POST is a new lead with a phone number of its own, +380 CODE and 7 digits (the thread's
-- number and a counter), so that no insert is a repeat that a server could store without
-- notifying (zayavka notifies a phone once a day): each run against the same
-- database passes a CODE of its own (a Ukrainian mobile operator code such as 67).

local threads = {}
local counter = 0
local code  -- thread_id: a global, set by setup() through thread:set

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
end

function request()
  counter = counter + 1
  local phone = string.format("+380%s%07d", code, (thread_id or 0) * 1000000 + counter % 1000000)
  return wrk.format(nil, nil, nil,
    '{"name":"Олена","phone":"' .. phone .. '","confirmation":"Так","comment":null}')
end

-- done() comes from wrk-report.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-report.lua")
