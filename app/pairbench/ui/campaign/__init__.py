"""The Campaigns tab: the plan's matrix editor, the live grid of a campaign, the list."""
