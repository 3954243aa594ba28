"""Accounting's stored records (cost snapshots, alarms) are added by the accounting issue."""
