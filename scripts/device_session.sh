#!/usr/bin/env bash
# One device call of a session: every new recording this session needs, each step with its
# own time limit, everything packed into $OUT/all.tgz after each step (what a limit leaves
# still comes back). Usage on the device machine: bash scripts/device_session.sh [STEP ...]
# Steps: challenges fma fma_issue paradox one_sm grade intensity (default: all but intensity
# and fma_issue).
set -u
export PYTHONUNBUFFERED=1
W="$OUT/w"; mkdir -p "$W"
pack() { tar czf "$OUT/all.tgz" -C "$OUT" w; }
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(challenges fma paradox one_sm grade)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$W/gpu.txt"
for s in "${steps[@]}"; do
  t0=$(date +%s)
  case $s in
    challenges) timeout 200 python3 scripts/challenges_on_device.py --out "$W/challenges" ;;
    fma) timeout 100 python3 scripts/fma_variants_on_device.py --out "$W/fma" --repeat 3 --hold 2 ;;
    fma_issue) for v in chains8 chains16; do timeout 40 python3 scripts/fma_issue_on_device.py --variant $v --out "$W/fma_issue_$v"; done ;;
    paradox) timeout 70 python3 -m labs run paradox --out "$W/labs" ;;
    intensity) timeout 150 python3 -m labs run intensity --out "$W/labs" ;;
    one_sm) timeout 80 python3 -m labs.littles_law one_sm && cp labs/results/H200/littles_law.json "$W/" ;;
    grade) timeout 150 python3 scripts/grade_challenges_on_gpu.py --out "$W/grade" ;;
  esac > "$W/$s.log" 2>&1
  echo "== $s: rc $? in $(( $(date +%s) - t0 )) s"; tail -25 "$W/$s.log"
  pack
done
