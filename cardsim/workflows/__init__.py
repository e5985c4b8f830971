"""The workflows the commands run: studies, tuning, the skill ladder, strategy checks."""
