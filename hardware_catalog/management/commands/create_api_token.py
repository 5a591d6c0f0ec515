"""`manage.py create_api_token USERNAME NAME`: an API token for a script (the key is printed once)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from planner.services import TokenLimit, token_create


class Command(BaseCommand):
    help = "Create a named API token for a user and print its key (shown once)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("name", help="What the token is for, e.g. 'procurement script'.")

    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"No user '{options['username']}'.")
        try:
            _, key = token_create(user=user, name=options["name"])
        except TokenLimit as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(key)
