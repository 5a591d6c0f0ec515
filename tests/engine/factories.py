"""Hand-built engine inputs with round numbers, for engine tests that need no database."""

from planner.engine import (
    AdapterParams,
    BrickGroup,
    ClientParams,
    DesignInput,
    DiskParams,
    EnclosureParams,
    MetadataParams,
    PartParams,
    PriceParams,
    RackParams,
    RaidLayout,
    ServerParams,
    TuningParams,
)
from planner.engine.inputs import MetadataLine
from planner.engine.units import link_payload_gbps

SERVER = ServerParams(slug="srv", name="Server", height_u=1, power_w=300, weight_kg=20, pcie_slots=3)
SERVER_PART = PartParams(slug="srv", name="Server", kind="server", height_u=1, power_w=300, weight_kg=20)
HBA = AdapterParams(slug="hba", name="HBA", kind="sas_hba", effective_gbps=6.7, power_w=13)
NET = AdapterParams(slug="net", name="HCA", kind="ib_hca", effective_gbps=6.0, power_w=10)
DISK4 = DiskParams(slug="d4", name="4 TB", capacity_bytes=4e12, read_mbps=175, write_mbps=175, power_w=10, weight_kg=0.9)
DISK6 = DiskParams(slug="d6", name="6 TB", capacity_bytes=6e12, read_mbps=216, write_mbps=216, power_w=11, weight_kg=1.0)
HEAD = EnclosureParams(
    slug="head",
    name="Head",
    kind="raid_head",
    height_u=4,
    drive_slots=60,
    controllers=2,
    controller_read_mbps=5000,
    controller_write_mbps=5000,
    controller_requests_per_s=4800,
    uplink_ports=8,
    uplink_port_gbps=link_payload_gbps(4, 12, 0.736),
    max_expansions=2,
    power_w=400,
    weight_kg=50,
)
EXP = EnclosureParams(
    slug="exp",
    name="Expansion",
    kind="expansion",
    height_u=4,
    drive_slots=60,
    controllers=0,
    controller_read_mbps=0,
    controller_write_mbps=0,
    controller_requests_per_s=0,
    uplink_ports=2,
    uplink_port_gbps=link_payload_gbps(4, 6, 0.736),
    max_expansions=0,
    power_w=250,
    weight_kg=48,
)
SWITCH = PartParams(slug="sw", name="Switch", kind="switch", height_u=1, power_w=100, weight_kg=8)
RACK = RackParams(slug="r42", name="42U rack", units=42, power_budget_w=17000, max_load_kg=1361, weight_kg=140, switches=((SWITCH, 2),))
TUNED = TuningParams(slug="large-io", name="Large I/O", rpc_kib=1024, software_read_efficiency=0.9, software_write_efficiency=0.9)
STOCK = TuningParams(
    slug="default", name="Default", rpc_kib=1024, max_sectors_kib=512, software_read_efficiency=0.9, software_write_efficiency=0.9
)
METADATA = MetadataParams(
    slug="mds",
    name="Metadata cell",
    lines=(
        MetadataLine(kind="server", part=SERVER_PART, count=4, role="MDS"),
        MetadataLine(
            kind="enclosure",
            part=PartParams(slug="md", name="MD storage", kind="enclosure", height_u=2, power_w=200, weight_kg=16),
            count=1,
            role="MDT",
        ),
    ),
)
PRICES = PriceParams(
    slug="p",
    name="Test prices",
    currency="USD",
    illustrative=True,
    effective_date="2015-01-01",
    service_years=5,
    energy_price_per_kwh=0.1,
    pue=1.5,
    unit_prices={
        ("server", "srv"): 5000,
        ("adapter", "hba"): 600,
        ("adapter", "net"): 800,
        ("enclosure", "head"): 40000,
        ("enclosure", "exp"): 10000,
        ("disk", "d4"): 300,
        ("disk", "d6"): 420,
        ("rack", "r42"): 2500,
        ("switch", "sw"): 5000,
        ("enclosure", "md"): 12000,
    },
    support_per_server_year=10000,
)


def brick(count=1, expansions=0, disk=DISK4, **kw) -> BrickGroup:
    fields = dict(
        template="perf" if expansions == 0 else "cap",
        name="Brick" if expansions == 0 else "Capacity brick",
        role="performance" if expansions == 0 else "capacity",
        count=count,
        server=SERVER,
        servers_per_brick=1,
        hba=HBA,
        hba_count=2,
        network=NET,
        network_count=1,
        head=HEAD,
        expansion=EXP,
        expansions=expansions,
        disk=disk,
        raid=RaidLayout(level="raid6", data=8, parity=2, groups=6, spares=0, segment_kib=128),
        storage_ports=4,
        fs_overhead_fraction=0.0,
    )
    fields.update(kw)
    return BrickGroup(**fields)


def design(*bricks, tuning=TUNED, failover="none", placement="none", clients=None, rack=RACK, name="test") -> DesignInput:
    return DesignInput(
        name=name,
        bricks=tuple(bricks),
        rack=rack,
        tuning=tuning,
        failover=failover,
        placement=placement,
        metadata=METADATA if placement != "none" else None,
        clients=clients,
        prices=PRICES,
    )


def clients(count, gbps=6.0) -> ClientParams:
    return ClientParams(count=count, adapter=AdapterParams(slug="cnet", name="Client HCA", kind="ib_hca", effective_gbps=gbps))
