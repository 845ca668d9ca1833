-- wrk script of bench/floor.sh: a POST that every check reads and the rules refuse (a good phone
-- number, but the yes/no answer is neither: 400), so it costs what an insert costs before storage:
-- the request, the anon key, the rate limit, the JSON and every rule of the lead (all run, so that
-- a form can mark each field).
--   wrk ... -s lib/wrk-refused.lua URL -- APIKEY
function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["apikey"] = args[1]
  wrk.body = '{"name":"Олена","phone":"+380671234567","confirmation":"Можливо","comment":null}'
end

-- done() comes from wrk-report.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-report.lua")
