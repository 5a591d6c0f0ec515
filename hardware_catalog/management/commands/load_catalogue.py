"""`manage.py load_catalogue [--update]`: load the default catalogue from fixtures/."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from hardware_catalog.importers import FIXTURES_DIR, CatalogueLoadError, load_catalogue


class Command(BaseCommand):
    help = "Load the hardware catalogue and price lists from the YAML fixtures (new records only, unless --update)."

    def add_arguments(self, parser):
        parser.add_argument("--update", action="store_true", help="Overwrite shipped records that already exist.")
        parser.add_argument("--directory", default=str(FIXTURES_DIR), help="Folder holding the fixture files.")

    def handle(self, *args, **options):
        try:
            report = load_catalogue(Path(options["directory"]), update=options["update"])
        except CatalogueLoadError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Catalogue loaded: {report.summary()}"))
