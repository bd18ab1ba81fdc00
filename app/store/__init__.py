"""Durable state of the service: deliveries, jobs, assessments and harvested task instances."""
