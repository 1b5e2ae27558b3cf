#pragma once
// A linked GLSL program built from two embedded shader files (shaders/NAME).
#include <string>

#include "app/gl/gl.h"

namespace hs {

// Source text of shaders/NAME embedded at build time (generated embedded_shaders.cpp).
std::string embedded_shader(const std::string& name);

class ShaderProgram {
public:
    ShaderProgram() = default;
    // Compiles and links; throws hs::Error naming the file and quoting the info log.
    // `defines` (e.g. "#define HS_LOG 1\n") goes right after each source's #version line.
    ShaderProgram(const std::string& vertex_name, const std::string& fragment_name, const std::string& defines = "");
    ~ShaderProgram();
    ShaderProgram(const ShaderProgram&) = delete;
    ShaderProgram& operator=(const ShaderProgram&) = delete;
    ShaderProgram(ShaderProgram&& other) noexcept;
    ShaderProgram& operator=(ShaderProgram&& other) noexcept;

    GLuint id() const { return program_; }
    GLint uniform(const char* name) const { return glGetUniformLocation(program_, name); }

private:
    GLuint program_ = 0;
};

}  // namespace hs
