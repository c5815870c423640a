"""The Django admin for staff: games, their analyses, and the work queued or running."""

from django.contrib import admin

from frontend.forms import AdminLoginForm
from frontend.models import Analysis, Game, Job

admin.site.login_form = AdminLoginForm  # throttled after failed logins, like the site's


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("pk", "__str__", "kind", "user", "size", "result", "phase", "updated")
    list_filter = ("kind", "phase", "size", "rules")
    search_fields = ("black_player", "white_player", "user__username", "owner")
    raw_id_fields = ("user",)
    readonly_fields = (  # the clock is the server's to keep
        "created", "updated", "time_system", "time_main", "time_period", "time_periods", "clock",
    )


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    list_display = ("pk", "game", "status", "total", "created", "updated")
    list_filter = ("status",)
    raw_id_fields = ("game",)
    exclude = ("results",)


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("pk", "kind", "owner", "slot", "game", "state", "created", "heartbeat")
    list_filter = ("kind", "state")
    search_fields = ("owner",)
    raw_id_fields = ("game",)
