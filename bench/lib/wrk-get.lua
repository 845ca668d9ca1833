-- wrk script of bench/inserts.sh for the floor, GET / (a static request: wrk builds it once).

-- done() comes from wrk-report.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-report.lua")
