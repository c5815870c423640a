"""URL routes of the accounts (mounted under ``accounts/``), named as Django's auth expects."""

from django.contrib.auth import views as auth_views
from django.urls import path

from frontend import account_views

urlpatterns = [
    path("signup/", account_views.signup, name="signup"),
    path("login/", account_views.LoginView.as_view(template_name="accounts/login.html"), name="login"),
    path("logout/", account_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        account_views.PasswordChangeView.as_view(template_name="accounts/password_change.html"),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
]
