"""URL routes of the front end."""

from django.urls import path

from frontend import views

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("new", views.new_game, name="new_game"),
    path("games", views.my_games, name="games"),
    path("review", views.upload, name="upload"),
    path("game/<int:pk>/", views.play, name="play"),
    path("game/<int:pk>/review", views.review, name="review"),
    path("game/<int:pk>/compare", views.compare, name="compare"),
    path("game/<int:pk>/sgf", views.download_sgf, name="sgf"),
    path("game/<int:pk>/delete", views.delete_game, name="delete"),
    path("game/<int:pk>/share", views.share, name="share"),
    path("game/<int:pk>/unshare", views.unshare, name="unshare"),
    path("shared/<str:token>", views.shared_review, name="shared"),
    path("shared/<str:token>/download", views.shared_sgf, name="shared_sgf"),
    path("api/analyze", views.api_analyze, name="api_analyze"),
    path("api/networks", views.api_networks, name="api_networks"),
    path("healthz", views.healthz, name="healthz"),
]
