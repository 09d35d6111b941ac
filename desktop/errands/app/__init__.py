"""The desktop app: the only package that imports Qt.

``main.run_app`` starts it: a QApplication on a qasync event loop, the engine hosted in
this process (on a thread of its own, see :class:`errands.engine.service.EngineThread`),
one :class:`adapter.Adapter` that turns the engine's notices into Qt signals, the main
window, the tray and desktop notifications.
"""
