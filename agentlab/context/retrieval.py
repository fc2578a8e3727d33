"""Just-in-time retrieval: tools return identifiers and a summary line; details load only when asked.

``get_weather`` here answers with today's reading and a reference (``"forecast/Paris"``), not the
7-day forecast; ``load_details(ref)`` returns the forecast for one reference. The window holds what
the agent asked for. The simulated agent asks for no forecast, because the report needs only
today's temperatures: that is what it was written to do, not a finding about a model's judgement.
"""

from __future__ import annotations

from agentlab.tools import Tool, ToolError, tool
from agentlab.weather import forecast, lookup, weather_table

PREFIX = "forecast/"
"""Every detail reference starts with this."""


def jit_tools(forecast_days: int = 7) -> list[Tool]:
    """``get_weather`` (reading + reference) and ``load_details`` (the forecast behind a reference)."""

    @tool(name="get_weather")
    def get_weather(city: str) -> dict:
        """Get today's temperature (degrees Celsius) and conditions for a city, and a reference to its forecast.

        Args:
            city: The city's name, e.g. "Paris".
        """
        return {**lookup(city), "details": PREFIX + lookup(city)["city"]}

    @tool(name="load_details")
    def load_details(ref: str) -> dict:
        """Load the daily forecast behind a reference returned by get_weather (only when you need it).

        Args:
            ref: A reference such as "forecast/Paris".
        """
        if not ref.startswith(PREFIX):
            raise ToolError(
                f"Unknown reference {ref!r}: references look like '{PREFIX}Paris', as get_weather returns them."
            )
        rec = weather_table().get(ref[len(PREFIX) :].casefold())
        if rec is None:
            raise ToolError(f"No details for {ref!r}: ask get_weather for the city first and use its reference.")
        return {"ref": ref, "forecast": forecast(rec, forecast_days)}

    return [get_weather, load_details]
