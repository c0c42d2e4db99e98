-- Argo CD health check of a ServerlessHorizontalPodAutoscaler (shpa.dev/v1).
-- Install: docs/kubernetes.md, "Argo CD health". Written for Argo CD's Lua 5.1 VM (gopher-lua).
-- Suspended: paused with the annotation shpa.dev/dry-run: "true", or scaling disabled (target at zero by hand),
-- or a direction paused (condition ScalingPaused True: shpa.dev/pause, pause-scale-up, pause-scale-down in force).
-- Progressing: the sync has not yet evaluated the current generation. Healthy: Ready True (also at zero
-- replicas below an activation threshold, reason BelowActivationThreshold: waiting for work is no fault).
-- Degraded: Ready False (invalid spec, metrics failing, target unreadable), with the condition's reason;
-- or Ready True with reason FallbackActive: it scales, but on a metric's fallback count (KEP-5679).
local hs = {}
local annotations = obj.metadata.annotations or {}
local status = obj.status or {}
local generation = obj.metadata.generation or 0

local ready = nil
local paused = nil
for _, c in ipairs(status.conditions or {}) do
  if c.type == "Ready" then ready = c end
  if c.type == "ScalingPaused" and c.status == "True" then paused = c end
end

if annotations["shpa.dev/dry-run"] == "true" then
  hs.status = "Suspended"
  hs.message = "paused (shpa.dev/dry-run): decisions are logged, the target's scale is not written"
  return hs
end
if status.observedGeneration == nil or status.observedGeneration < generation or ready == nil
  or (ready.observedGeneration ~= nil and ready.observedGeneration < generation) then
  hs.status = "Progressing"
  hs.message = "waiting for the autoscaler to evaluate generation " .. tostring(generation)
  return hs
end
local text = (ready.reason or "") .. ": " .. (ready.message or "")
if ready.status == "True" and ready.reason == "FallbackActive" then
  hs.status = "Degraded"
elseif ready.status == "True" and paused ~= nil then
  -- Read from the condition the sync writes, so an expired pause is over at the next sync.
  hs.status = "Suspended"
  text = (paused.reason or "") .. ": " .. (paused.message or "")
elseif ready.status == "True" then
  hs.status = "Healthy"
elseif ready.reason == "ScalingDisabled" then
  hs.status = "Suspended"
elseif ready.status == "False" then
  hs.status = "Degraded"
else
  hs.status = "Progressing"
end
hs.message = text
return hs
