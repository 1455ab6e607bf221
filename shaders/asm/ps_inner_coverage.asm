// SV_InnerCoverage (conservative rasterization): vInnerCoverage is FullyCoveredEXT
// (SPV_EXT_fragment_fully_covered), converted to D3D's uint: 1 fully covered, 0 not.
ps_5_0
.output SV_Target 0 o0 uint
dcl_globalFlags refactoringAllowed
dcl_input vInnerCoverage
dcl_output o0.xyzw
mov o0.x, vInnerCoverage
mov o0.yzw, l(0, 0, 0, 0)
ret
