-- dsh.timefmt: a session's ISO 8601 time as a person reads it in a list:
-- relative while recent, in local time after. Pure but for the local
-- zone (os.date).
local M = {}

-- M.epoch reads "2026-12-07T16:07:31Z" (fractions, "+01:00" offsets
-- too) as seconds since the epoch; nil when it is not such a time.
function M.epoch(iso)
  if type(iso) ~= "string" then
    return nil
  end
  local y, mo, d, h, mi, s, rest = iso:match("^(%d%d%d%d)-(%d%d)-(%d%d)[T ](%d%d):(%d%d):(%d%d)(.*)$")
  if not y then
    return nil
  end
  rest = rest:gsub("^%.%d+", "")
  local off = 0
  if rest ~= "Z" and rest ~= "" then
    local sign, oh, om = rest:match("^([+-])(%d%d):?(%d%d)$")
    if not sign then
      return nil
    end
    off = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == "-" and -1 or 1)
  end
  -- days since the epoch of a civil date (Howard Hinnant's algorithm);
  -- a field out of range (month 13, day 45, 99:99) is not a time
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  local mdays = { 31, (y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0)) and 29 or 28, 31, 30, 31, 30, 31, 31, 30, 31,
    30, 31 }
  if y < 1 or mo < 1 or mo > 12 or d < 1 or d > mdays[mo] or tonumber(h) > 23 or tonumber(mi) > 59
    or tonumber(s) > 60 then
    return nil
  end
  if mo <= 2 then
    y = y - 1
  end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (mo + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(s) - off
end

-- M.relative says when epoch t was, seen at now (both seconds): "just
-- now", "5 min ago", "3 h ago", "yesterday 14:02", "Mon 14:02" within a
-- week, else the local date.
function M.relative(t, now)
  local ago = now - t
  if ago < 0 then
    return os.date("%Y-%m-%d %H:%M", t)
  elseif ago < 60 then
    return "just now"
  elseif ago < 3600 then
    return ("%d min ago"):format(math.floor(ago / 60))
  end
  local today = os.date("*t", now)
  local midnight = now - (today.hour * 3600 + today.min * 60 + today.sec)
  if t >= midnight then
    return ("%d h ago"):format(math.floor(ago / 3600))
  elseif t >= midnight - 86400 then
    return "yesterday " .. os.date("%H:%M", t)
  elseif t >= midnight - 6 * 86400 then
    return os.date("%a %H:%M", t)
  end
  return os.date("%Y-%m-%d", t)
end

-- M.ago formats an ISO time relative to now (the time as given when it
-- cannot be read).
function M.ago(iso, now)
  local t = M.epoch(iso)
  if not t then
    return tostring(iso or "")
  end
  return M.relative(t, now or os.time())
end

return M
