#!/usr/bin/python3
"""One reverse geocode with an unmodified geopy geocoder (Debian python3-geopy), pointed at a drop-in host.

Usage: geopy_reverse.py '<json>' with {"service", "options", "lat", "lon"}; "options" are the geocoder's own
constructor arguments (domain, scheme, api_key, proxies...). With "geocode": "<text>" a forward search is made instead. Prints one JSON line: {"ok": true, "address", "lat",
"lon", "raw"} or {"ok": false, "error": <exception class>, "bases": [<geopy exception classes>], "message"}.
"""
import json
import sys

import geopy
from geopy.geocoders import get_geocoder_for_service


def main():
    args = json.loads(sys.argv[1])
    result = {"geopy": geopy.__version__}
    try:
        geocoder = get_geocoder_for_service(args["service"])(**args["options"])
        if "geocode" in args:
            location = geocoder.geocode(args["geocode"], exactly_one=True)
        else:
            location = geocoder.reverse((args["lat"], args["lon"]), exactly_one=True)
        if location is None:
            result.update(ok=True, address=None)
        else:
            result.update(ok=True, address=location.address, lat=location.latitude,
                          lon=location.longitude, raw=location.raw)
    except Exception as error:  # the client's own error is the outcome under test
        bases = [c.__name__ for c in type(error).__mro__ if c.__module__.startswith("geopy")]
        result.update(ok=False, error=type(error).__name__, bases=bases, message=str(error))
    print(json.dumps(result))


main()
