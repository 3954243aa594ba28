"""A URLconf whose only view raises, for the tests of error responses."""

from django.conf import settings
from django.urls import path


def fails_holding_the_broker_url(request):
    broker_url = settings.CELERY_BROKER_URL  # a local variable the DEBUG page lists with its frame
    raise RuntimeError(f"the view failed while holding a broker URL of {len(broker_url)} characters")


urlpatterns = [path("fails/", fails_holding_the_broker_url)]
