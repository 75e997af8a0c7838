"""Metrics shared by several games and analyses: rates and intervals (stats), clustered intervals
(cluster), ratings (Bradley-Terry), rank correlation. A game's own metrics live in its folder
(games/GAME/metrics.py); nothing here imports a game."""
