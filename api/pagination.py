"""Pagination for list endpoints: ?page=N&page_size=M, each a whole number given at most once.

A value that is not one (page=0, page=abc, page_size=-1, page_size=1000, the parameter repeated) is
a 400 naming the parameter, as every other bad input is, rather than silently replaced by a default.
A page past the last one is a 404 (the page does not exist), as DRF does.
"""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """?page=N&page_size=M, at most 200 rows a page."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    last_page_strings = ()  # `page=last` is not a number: the schema documents an integer, so refuse it

    def _whole_number(self, request, name: str, maximum: int | None = None) -> int | None:
        values = request.query_params.getlist(name)
        if not values:
            return None
        if len(values) > 1:
            raise ValidationError({name: [f"give {name} once (it was given {len(values)} times)"]})
        text = values[0].strip()
        upper = f" to {maximum}" if maximum else " or more"
        if not text.isascii() or not text.isdigit() or int(text[:30]) < 1 or (maximum and int(text[:30]) > maximum):
            raise ValidationError({name: [f"must be a whole number from 1{upper}; got '{values[0][:40]}'"]})
        return int(text[:30])  # a page number of more digits is past the last page either way (404)

    def get_page_size(self, request):
        size = self._whole_number(request, self.page_size_query_param, self.max_page_size)
        return size if size is not None else self.page_size

    def get_page_number(self, request, paginator):
        number = self._whole_number(request, self.page_query_param)
        return number if number is not None else 1

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = "Page number, from 1. A page past the last is a 404."
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": self.max_page_size}
                parameter["description"] = f"Rows per page, 1 to {self.max_page_size} (default {self.page_size})."
        return parameters
