#pragma once
// The one place the app includes OpenGL: core-profile prototypes from glcorearb.h,
// resolved by libGL (glvnd exports every core entry point), no loader library.
#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES
#endif
#include <GL/glcorearb.h>
