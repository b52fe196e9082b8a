# SPDX-License-Identifier: MIT
# The dashboard's files (web/) built into the binary: library gpumeter::dashboard_assets,
# whose generated source cmake/EmbedAssets.cmake writes again whenever a file under web/
# changes (new files are found at the next configure, which a changed glob triggers).

set(GPUMETER_WEB_DIR ${PROJECT_SOURCE_DIR}/web)
set(GPUMETER_UPLOT_DIR ${GPUMETER_WEB_DIR}/node_modules/uplot)
if(NOT EXISTS ${GPUMETER_UPLOT_DIR}/dist/uPlot.iife.min.js)
  message(FATAL_ERROR "The dashboard's chart library is missing (${GPUMETER_UPLOT_DIR}): run "
                      "scripts/install-deps.sh, which runs `npm ci` in web/")
endif()

file(GLOB dashboard_pages CONFIGURE_DEPENDS ${GPUMETER_WEB_DIR}/*.html ${GPUMETER_WEB_DIR}/*.css
     ${GPUMETER_WEB_DIR}/*.svg)
file(GLOB dashboard_scripts CONFIGURE_DEPENDS ${GPUMETER_WEB_DIR}/js/*.js)

# content_type_of(FILE OUT_VAR): the media type of FILE (all of them text, sent as UTF-8).
function(content_type_of file out_var)
  get_filename_component(extension ${file} LAST_EXT)
  set(types .html "text/html" .js "text/javascript" .css "text/css" .svg "image/svg+xml")
  list(FIND types "${extension}" at)
  if(at EQUAL -1)
    set(type "text/plain")
  else()
    math(EXPR at "${at} + 1")
    list(GET types ${at} type)
  endif()
  set(${out_var} "${type}" PARENT_SCOPE)
endfunction()

set(dashboard_files "")
set(manifest "")
# add_asset(URL-PATH FILE)
macro(add_asset url_path file)
  content_type_of(${file} type)
  string(APPEND manifest "${url_path}\t${file}\t${type}\n")
  list(APPEND dashboard_files ${file})
endmacro()

foreach(file IN LISTS dashboard_pages)
  get_filename_component(name ${file} NAME)
  if(name STREQUAL "index.html")
    add_asset("/" ${file})
  else()
    add_asset("/assets/${name}" ${file})
  endif()
endforeach()
foreach(file IN LISTS dashboard_scripts)
  get_filename_component(name ${file} NAME)
  add_asset("/assets/js/${name}" ${file})
endforeach()
add_asset("/assets/uplot/uPlot.iife.min.js" ${GPUMETER_UPLOT_DIR}/dist/uPlot.iife.min.js)
add_asset("/assets/uplot/uPlot.min.css" ${GPUMETER_UPLOT_DIR}/dist/uPlot.min.css)
add_asset("/assets/uplot/LICENSE" ${GPUMETER_UPLOT_DIR}/LICENSE)

set(dashboard_manifest ${CMAKE_CURRENT_BINARY_DIR}/dashboard_assets.manifest)
set(dashboard_source ${CMAKE_CURRENT_BINARY_DIR}/dashboard_asset_data.cpp)
file(CONFIGURE OUTPUT ${dashboard_manifest} CONTENT "${manifest}")
add_custom_command(
  OUTPUT ${dashboard_source}
  COMMAND ${CMAKE_COMMAND} -DMANIFEST=${dashboard_manifest} -DOUTPUT=${dashboard_source}
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedAssets.cmake
  DEPENDS ${dashboard_manifest} ${dashboard_files} ${PROJECT_SOURCE_DIR}/cmake/EmbedAssets.cmake
  COMMENT "Embedding the dashboard's files"
  VERBATIM)

gpumeter_library(dashboard_assets SOURCES dashboard_assets.cpp ${dashboard_source})
