"""Root URL configuration."""

from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("frontend.account_urls")),
    path("", include("frontend.urls")),
    *staticfiles_urlpatterns(),
]

handler400 = "frontend.views.bad_request"
