"""The chat side of Majlis: one platform-independent service and thin adapters (Telegram, Discord, console)."""
