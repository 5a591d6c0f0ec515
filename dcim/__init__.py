"""Hand a design to the data centre's source of truth (NetBox, Nautobot) and take device types from
the community device-type library: import (library YAML -> catalogue), export (design -> device-type
YAML and bulk-import CSV in a zip), push (design -> a DCIM over its REST API, as a Celery job)."""
