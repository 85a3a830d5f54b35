"""The pulka as a picture: the classic Preferans score sheet drawn with Pillow.

``model`` (what is drawn where), ``fonts`` (measuring and fitting text), ``robot`` (the
computer players' mark), ``builder`` (the pieces collected in pixels), ``totals`` (the
running entries), ``geometry`` (the ruling and the cells), ``layout`` (a game's sheet as a
layout), ``draw`` (the layout drawn, the PNG of a game) and ``png`` (the PNG writer).
"""
