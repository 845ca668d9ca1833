-- wrk script of bench/inserts.sh for the inserts:
--   wrk ... -s lib/wrk-post.lua URL -- zayavka APIKEY CODE
--   wrk ... -s lib/wrk-post.lua URL -- pocketbase - CODE
-- Every POST is a new lead with a phone number of its own, +380 CODE and 7 digits (the thread's
-- number and a counter), so that no insert is a duplicate that a server could answer without
-- writing (zayavka suppresses a phone's repeats within a day): each run against the same
-- database passes a CODE of its own (a Ukrainian mobile operator code such as 67).
-- done() prints one line `WRKJSON {...}` with the counts and latency percentiles (microseconds)
-- that lib/inserts.py reads.

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

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d,' ..
    '"lat_min_us":%d,"lat_mean_us":%.1f,"lat_max_us":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
