"""Webhook event handlers shared by the App's worker and the Action: `dispatch.handle_delivery`."""
