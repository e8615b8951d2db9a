# Shell helpers of the benchmark scripts (sourced).

# device_of DCTOOL BACKEND: the device BACKEND runs on (`dctool backends --json`), or "none" where it is not usable.
device_of() {
  "$1" backends --json 2>/dev/null | python3 -c "
import json, sys
d = [b['device'] for b in json.load(sys.stdin) if b['name'] == sys.argv[1] and b['usable']]
print(d[0] if d else 'none')" "$2"
}
