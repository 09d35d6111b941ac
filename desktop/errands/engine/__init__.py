"""The engine: firing automations on time, once, and accounting for every fire."""
