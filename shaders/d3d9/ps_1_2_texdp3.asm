ps_1_2
tex t0
texdp3tex t1, t0
texm3x3pad t2, t0
texm3x3pad t3, t0
texm3x3vspec t3, t0
texreg2rgb t2, t1
cmp r0, t1, t2, c0
