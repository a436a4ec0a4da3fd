"""The service's parts, one concern per module; `bot.service.Service` puts them together."""
