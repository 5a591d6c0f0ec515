"""The hardware catalogue: disks, servers, enclosures, adapters, switches, racks, bricks, prices."""
